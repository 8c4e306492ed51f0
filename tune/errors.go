package tune

import (
	"errors"
	"fmt"
)

// ErrInvalid matches, through errors.Is, every error that says the input
// of a tuning run is bad: a malformed grid value, an unusable Config, or
// (wrapped from package workload) a bad workload file. A CLI maps it to
// exit code 2.
var ErrInvalid = errors.New("tune: invalid input")

// InputError is bad input. Field names what is wrong ("ttls[2]",
// "renews", "constraints.max_reexecuted_fraction"); the message carries no
// package prefix, so that a CLI can put the flag it came from in front.
type InputError struct {
	Field string
	Msg   string
}

// Error returns "field: message", or the message alone when there is no
// field (a parser reports on the value it was given).
func (e *InputError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *InputError) Is(target error) bool { return target == ErrInvalid }

// invalidf builds an *InputError for field.
func invalidf(field, format string, args ...any) error {
	return &InputError{Field: field, Msg: fmt.Sprintf(format, args...)}
}
