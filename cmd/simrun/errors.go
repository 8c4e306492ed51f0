package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/sweep"
)

// exitError carries an exit code, the message for stderr (nil when the
// command has already said everything), and a hint line.
type exitError struct {
	code int
	err  error
	hint string
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr is bad usage or bad input (exit 2), with a hint pointing at the
// command's help rather than cobra's whole usage block.
func usageErr(cmd *cobra.Command, err error) *exitError {
	path := "simrun"
	if cmd != nil {
		path = cmd.CommandPath()
	}
	return &exitError{code: exitUsage, err: err, hint: fmt.Sprintf("Run '%s --help' for usage.", path)}
}

// usagef is usageErr with a formatted message.
func usagef(cmd *cobra.Command, format string, args ...any) *exitError {
	return usageErr(cmd, fmt.Errorf(format, args...))
}

// classify maps an error from a package to its exit code: bad input
// (faults.ErrInvalid, sweep.ErrInvalid) is a usage error, anything else an
// internal error. Usage errors name what was bad through the context the
// caller wraps around err.
func classify(cmd *cobra.Command, err error) error {
	var ee *exitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return err
	case errors.Is(err, faults.ErrInvalid), errors.Is(err, sweep.ErrInvalid):
		return usageErr(cmd, err)
	}
	return internalErr(err)
}

// internalErr is an internal error (exit 3).
func internalErr(err error) *exitError {
	return &exitError{code: exitInternal, err: fmt.Errorf("internal error: %w", err)}
}

// errViolated ends a command whose output already reported a violated
// property (exit 1).
var errViolated = &exitError{code: exitViolated}
