package scenarios

import (
	"fmt"
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
)

// Option configures Run.
type Option func(*runConfig)

type runConfig struct {
	first, last uint64
	opts        Options
	parallel    bool
	expect      func(*testing.T, *Outcome)
}

// Seeds runs every seed from first to last, inclusive, as one subtest each.
func Seeds(first, last uint64) Option {
	return func(c *runConfig) { c.first, c.last = first, last }
}

// WithImpl runs the scenario against impl instead of lease.Correct(): this is
// how a user tests their own grantor and holder with the built-in
// scenarios and checkers.
func WithImpl(impl lease.Impl) Option {
	return func(c *runConfig) { c.opts.Impl = impl }
}

// WithOptions sets every run option at once (the seeds stay).
func WithOptions(opts Options) Option {
	return func(c *runConfig) { c.opts = opts }
}

// Parallel runs the seeds' subtests in parallel. Each seed still runs
// single-threaded in its own world.
func Parallel() Option {
	return func(c *runConfig) { c.parallel = true }
}

// Expect adds a check of the scenario's own story to every seed, on top of
// the properties (for example: "the stale write was fenced").
func Expect(check func(t *testing.T, out *Outcome)) Option {
	return func(c *runConfig) { c.expect = check }
}

// Run runs sc over seeds as subtests named "seed=N". A subtest fails when a
// property is violated or the run hits a limit, and prints the simrun
// command that replays it.
func Run(t *testing.T, sc Scenario, opts ...Option) {
	t.Helper()
	c := runConfig{first: 1, last: 1}
	for _, o := range opts {
		o(&c)
	}
	for seed := c.first; seed <= c.last; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			if c.parallel {
				t.Parallel()
			}
			out, err := Execute(sc, seed, c.opts)
			if err != nil {
				t.Fatalf("scenario %s seed %d: %v", sc.Name, seed, err)
			}
			Report(t, out)
			if c.expect != nil {
				c.expect(t, out)
			}
		})
	}
}

// Report fails t for every violated property of out, and for a run that
// stopped at a limit, with the command that replays it.
func Report(t testing.TB, out *Outcome) {
	t.Helper()
	if out.Sim.Err != nil {
		t.Errorf("run stopped early: %v\n  replay: %s", out.Sim.Err, out.ReplayCommand())
	}
	for _, r := range out.Checks {
		switch r.Status {
		case checker.Violated:
			t.Errorf("%s %s violated: %s\n  replay: %s", r.Property, r.Name, r.Summary, out.ReplayCommand())
		case checker.Unknown:
			t.Logf("%s %s unknown: %s", r.Property, r.Name, r.Summary)
		}
	}
}

// ReplayCommand returns the simrun command that reproduces this run.
func (o *Outcome) ReplayCommand() string {
	cmd := fmt.Sprintf("simrun run --scenario %s --seed %d", o.Scenario, o.Seed)
	if o.Impl != "" && o.Impl != lease.Correct().Name {
		cmd += " --impl " + o.Impl
	}
	return cmd
}
