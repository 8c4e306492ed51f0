package workload

import (
	"errors"
	"fmt"

	"github.com/leasesim/leasesim/internal/strictjson"
)

// ErrInvalid matches, through errors.Is, every error that says a workload
// is bad input (a *LineError). A CLI maps it to exit code 2.
var ErrInvalid = errors.New("workload: invalid input")

// LineError says which line of a workload is wrong, what the line is, which
// field, and why, for example
//
//	workload: line 12: task "t9": units: must be positive, got 0
type LineError struct {
	// Line is the line number, from 1; 0 when the problem is the file as a
	// whole (it is empty, say).
	Line int
	// Subject says what the line is: "header", `task "t9"`, "crash", …;
	// empty when the line could not be read as an object.
	Subject string
	// Field is the JSON name of the offending field, with a path into it
	// where needed, such as "env.latency.alpha"; empty for the whole line.
	Field string
	// Err says what is wrong.
	Err error
}

// Error formats the error as "workload: line L: subject: field: what",
// leaving out the parts that are empty.
func (e *LineError) Error() string {
	s := "workload: "
	if e.Line > 0 {
		s += fmt.Sprintf("line %d: ", e.Line)
	}
	if e.Subject != "" {
		s += e.Subject + ": "
	}
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Err.Error()
}

// Unwrap returns what is wrong.
func (e *LineError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *LineError) Is(target error) bool { return target == ErrInvalid }

// fieldError is a problem with one field, before the line is known:
// strictjson's, with the package's own at.
type fieldError strictjson.FieldError

func (e *fieldError) Error() string { return (*strictjson.FieldError)(e).Error() }

// badf builds the error for one field.
func badf(field, format string, args ...any) *fieldError {
	return (*fieldError)(strictjson.Badf(field, format, args...))
}

// under prefixes the field of err with parent ("env" + "loss" is
// "env.loss"); a nil err stays nil.
func under(parent string, err *fieldError) *fieldError {
	return (*fieldError)(strictjson.Under(parent, (*strictjson.FieldError)(err)))
}

// at attaches a line and a subject to a field error.
func (e *fieldError) at(line int, subject string) *LineError {
	return &LineError{Line: line, Subject: subject, Field: e.Field, Err: e.Err}
}
