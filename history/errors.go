package history

import (
	"errors"
	"fmt"

	"github.com/leasesim/leasesim/internal/strictjson"
)

// ErrInvalid matches, through errors.Is, every error that says a history
// file is bad input (a *LineError). A CLI maps it to exit code 2.
var ErrInvalid = errors.New("history: invalid input")

// LineError says which line of a history file is wrong, which field, and
// why, for example
//
//	history.jsonl:12: field "token": want an integer, got a string
//	history.jsonl:3:17: invalid character '}' after object key
type LineError struct {
	// File names the input ("history" when the caller gave no name).
	File string
	// Line is the line number, from 1; 0 when the problem is the file as
	// a whole. Column, from 1, is set for syntax errors only.
	Line, Column int
	// Field is the JSON path of the offending field, such as "token" or
	// "input.keys[2].key"; empty for the whole line.
	Field string
	// Err says what is wrong.
	Err error
}

// Error formats the error as "file:line: field "f": what".
func (e *LineError) Error() string {
	s := e.File
	if s == "" {
		s = "history"
	}
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Column > 0 {
		s += fmt.Sprintf(":%d", e.Column)
	}
	if e.Field != "" {
		s += fmt.Sprintf(": field %q", e.Field)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns what is wrong.
func (e *LineError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *LineError) Is(target error) bool { return target == ErrInvalid }

// fieldError is a problem with one field, before the line is known:
// strictjson's, with the package's own at.
type fieldError strictjson.FieldError

// badf builds the error for one field.
func badf(field, format string, args ...any) *fieldError {
	return (*fieldError)(strictjson.Badf(field, format, args...))
}

// under prefixes the field of err with parent ("input" + "kind" is
// "input.kind"); a nil err stays nil.
func under(parent string, err *fieldError) *fieldError {
	return (*fieldError)(strictjson.Under(parent, (*strictjson.FieldError)(err)))
}

// at attaches the file and line.
func (e *fieldError) at(file string, line int) *LineError {
	return &LineError{File: file, Line: line, Field: e.Field, Err: e.Err}
}

// Error lets a *fieldError travel as an error inside the package.
func (e *fieldError) Error() string { return (*strictjson.FieldError)(e).Error() }
