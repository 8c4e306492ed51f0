package faults

import (
	"errors"
	"fmt"
)

// ErrInvalid matches, through errors.Is, every error that says a schedule
// or a nemesis is bad input: a *ParseError or a *ValidationError. A CLI maps
// it to exit code 2.
var ErrInvalid = errors.New("faults: invalid input")

// ParseError says where a schedule's JSON is malformed: the line and column
// (both from 1; the column counts characters), the JSON path of the value
// when it is known, for example "events[3].duration", and what is wrong.
type ParseError struct {
	Line   int
	Column int
	Path   string
	Err    error
}

// Error formats the error as "faults: line L, column C: path: what".
func (e *ParseError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("faults: line %d, column %d: %v", e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("faults: line %d, column %d: %s: %v", e.Line, e.Column, e.Path, e.Err)
}

// Unwrap returns what is wrong.
func (e *ParseError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *ParseError) Is(target error) bool { return target == ErrInvalid }

// ValidationError names the entry and field of a schedule (or the field of a
// nemesis) that makes it unusable, for example
//
//	faults: event 3 (pause): duration: must be positive, got -5s
type ValidationError struct {
	// Index is the event's position in Schedule.Events, or -1 when the
	// problem is a field of the schedule or nemesis itself.
	Index int
	// Kind is the event's kind, empty when Index is -1.
	Kind Kind
	// Field is the JSON name of the offending field, possibly with a path
	// into it, such as "groups[1][0]".
	Field string
	// Err says what is wrong.
	Err error
}

// Error formats the error as "faults: event I (kind): field: what", or
// "faults: field: what" for a field of the schedule or nemesis itself.
func (e *ValidationError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("faults: %s: %v", e.Field, e.Err)
	}
	return fmt.Sprintf("faults: event %d (%s): %s: %v", e.Index, e.Kind, e.Field, e.Err)
}

// Unwrap returns what is wrong.
func (e *ValidationError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }
