package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/scenarios"
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
	words := []string{"--help"}
	if cmd != nil { // "simrun check": the subcommands after the root's name
		words = append(strings.Fields(cmd.CommandPath())[1:], words...)
	}
	return &exitError{code: exitUsage, err: err, hint: fmt.Sprintf("Run '%s' for usage.", repro.Simrun(words...))}
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
	var unsupported *scenarios.UnsupportedError
	if errors.As(err, &unsupported) { // --scenario and --impl that do not go together
		return usagef(cmd, "--impl %s: %w", unsupported.Impl, unsupported)
	}
	var hp *scenarios.HarnessPanic
	if errors.As(err, &hp) {
		return harnessErr(err, hp)
	}
	return internalErr(err)
}

// harnessErr is a bug of the harness itself (exit 3): never the
// implementation's fault. The message says so; the stack follows, for the
// bug report.
func harnessErr(err error, hp *scenarios.HarnessPanic) *exitError {
	return &exitError{code: exitInternal,
		err:  fmt.Errorf("internal error: %w (a bug of leasesim itself, not of the implementation under test)", err),
		hint: hp.Stack}
}

// internalErr is an internal error (exit 3).
func internalErr(err error) *exitError {
	return &exitError{code: exitInternal, err: fmt.Errorf("internal error: %w", err)}
}

// errViolated ends a command whose output already reported a violated
// property (exit 1).
var errViolated = &exitError{code: exitViolated}

// unknownPolicy is what an unknown verdict does to the exit code
// (--unknown): fail, the default, because unknown is never a pass; or
// pass. An unknown that only says the run exceeded an assumption of the
// property (P1 under drift beyond rho) is not governed by it: that is an
// outcome of its own, counted and shown apart, and never a failure.
type unknownPolicy string

// The --unknown values.
const (
	unknownFail unknownPolicy = "fail"
	unknownPass unknownPolicy = "pass"
)

// unknownFlagUsage documents --unknown; every command that has the flag
// uses it.
const unknownFlagUsage = "what an unknown verdict exits with: fail (exit 1, the default: unknown is never a pass) " +
	"or pass (exit 0); an exceeded assumption (drift beyond rho) is never a failure"

// addUnknownFlag adds --unknown to fl, stored in p.
func addUnknownFlag(fl *pflag.FlagSet, p *unknownPolicy) {
	*p = unknownFail
	fl.Var(p, "unknown", unknownFlagUsage)
}

// Set reads --unknown; cobra names the flag in the error.
func (p *unknownPolicy) Set(s string) error {
	switch v := unknownPolicy(s); v {
	case unknownFail, unknownPass:
		*p = v
		return nil
	}
	return fmt.Errorf("want %s or %s", unknownFail, unknownPass)
}

// String returns the policy; the zero policy is fail.
func (p *unknownPolicy) String() string {
	if p == nil || *p == "" {
		return string(unknownFail)
	}
	return string(*p)
}

// Type is the flag's value type in help.
func (p *unknownPolicy) Type() string { return "fail|pass" }

// exitForVerdicts is THE exit code rule for verdicts, for every command
// that judges runs (run, replay, sweep, merge): 1 when anything was
// violated; 1 when anything was unknown, unless the policy is pass; else
// 0. violated and unknown count runs (or properties of one run); unknown
// must not count verdicts that are unknown only because the run exceeded
// an assumption (checker.Result.AssumptionOnly): those never fail.
func exitForVerdicts(violated, unknown int, policy unknownPolicy) int {
	switch {
	case violated > 0:
		return exitViolated
	case unknown > 0 && policy != unknownPass:
		return exitViolated
	}
	return exitOK
}

// verdictErr is exitForVerdicts as the error a command returns: nil for
// exit 0, errViolated when something was violated (the output said so),
// and for unknowns under --unknown=fail an error whose message says what
// was unknown (what: "2 runs", "P4 liveness: run too short ...") and how
// to accept it.
func verdictErr(violated, unknown int, policy unknownPolicy, what string) error {
	switch {
	case exitForVerdicts(violated, unknown, policy) == exitOK:
		return nil
	case violated > 0:
		return errViolated
	}
	return &exitError{code: exitViolated,
		err: fmt.Errorf("unknown: %s; unknown is never a pass (--unknown=pass exits 0 on it)", what)}
}
