package scenarios

import (
	"errors"
	"fmt"
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
)

// Option configures Run.
type Option func(*runConfig)

type runConfig struct {
	seeds    seedList
	opts     Options
	parallel bool
	shrink   bool
	expect   func(*testing.T, *Outcome)
}

// Seeds runs every seed from first to last, inclusive, as one subtest each.
// -leasesim.seeds (or LEASESIM_SEEDS) on the command line replaces them.
func Seeds(first, last uint64) Option {
	return func(c *runConfig) { c.seeds = seedRange(first, last) }
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

// ShrinkFailures shrinks the fault schedule of every seed that violates a
// property (see ShrinkSeed), writes it under the package's ShrunkDir and
// prints it with the line that replays it. -leasesim.shrink (or
// LEASESIM_SHRINK=1) turns it on for every Run.
func ShrinkFailures() Option {
	return func(c *runConfig) { c.shrink = true }
}

// Run runs sc over seeds as subtests named "seed=N". A subtest fails when a
// property is violated, the run hits a limit or an Expect check fails, and
// prints the line that re-runs exactly that seed:
//
//	replay: go test -run '^TestX$/^seed=7$' ./pkg
//
// and, when the scenario is a catalogue one and the implementation one that
// simrun knows, the simrun line too. The command line can replace the seeds
// (-leasesim.seeds), run a schedule file instead of the scenario's faults
// (-leasesim.schedule) and shrink failures (-leasesim.shrink); see
// SeedsFlag.
func Run(t *testing.T, sc Scenario, opts ...Option) {
	t.Helper()
	c := runConfig{seeds: seedRange(1, 1)}
	for _, o := range opts {
		o(&c)
	}
	if cmdline.seeds.ok {
		c.seeds = cmdline.seeds
	}
	var unsupported *UnsupportedError
	if impl := c.opts.Impl.OrCorrect(); errors.As(Supports(sc, impl), &unsupported) {
		t.Skipf("skipped: %s %s", impl.Name, unsupported.Reason())
	}
	c.shrink = c.shrink || cmdline.shrink
	cli := cliKnows(sc, c.opts)
	schedule, scheduleFile, err := commandLineSchedule(sc)
	if err != nil {
		t.Fatal(err)
	}
	if schedule != nil {
		c.opts.Schedule = schedule
	}
	c.seeds.each(func(seed uint64) bool {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			if c.parallel {
				t.Parallel()
			}
			c.runSeed(t, sc, seed, cli, scheduleFile)
		})
		return true
	})
}

// runSeed runs one seed in its subtest.
func (c *runConfig) runSeed(t *testing.T, sc Scenario, seed uint64, cli bool, scheduleFile string) {
	t.Helper()
	if scheduleFile != "" {
		t.Logf("faults: the schedule in %s (%s), not the scenario's own", scheduleFile, ScheduleEnv)
	}
	opts := c.opts
	opts.T = t
	out, err := Execute(sc, seed, opts)
	if err != nil {
		t.Fatalf("scenario %s seed %d: %v", sc.Name, seed, err)
	}
	report(t, out)
	if c.expect != nil {
		c.expect(t, out)
	}
	if !t.Failed() {
		return
	}
	t.Log(linesFor(t, out, cli, scheduleFile))
	if c.shrink && len(out.Violated()) > 0 {
		shrinkFailure(t, sc, seed, opts, cli)
	}
}

// Report fails t for every violated property of out, and for a run that
// stopped at a limit, then prints the lines that replay it: the go test line
// for t, and the simrun line when out's scenario and implementation are
// built-in names (Report has only the outcome, so it takes the names at
// their word; Run checks the scenario and implementation themselves).
func Report(t testing.TB, out *Outcome) {
	t.Helper()
	if report(t, out) {
		t.Log(linesFor(t, out, cliKnowsNames(out), ""))
	}
}

// report fails t for every violated property of out and a run stopped at a
// limit, and reports whether it failed t.
func report(t testing.TB, out *Outcome) bool {
	t.Helper()
	failed := false
	if err := out.Err(); err != nil {
		t.Errorf("%s", runProblem(out, err))
		failed = true
	}
	for _, r := range out.Checks {
		switch r.Status {
		case checker.Violated:
			t.Errorf("%s %s violated: %s", r.Property, r.Name, r.Summary)
			failed = true
		case checker.Unknown:
			t.Logf("%s %s unknown: %s", r.Property, r.Name, r.Summary)
		}
	}
	return failed
}

// runProblem says what went wrong outside the properties, as the host
// words it.
func runProblem(out *Outcome, err error) string {
	if out.Goroutine != nil {
		return "goroutine host: " + err.Error()
	}
	return "run stopped early: " + err.Error()
}
