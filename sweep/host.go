package sweep

import (
	"context"
	"slices"
	"time"

	"github.com/leasesim/leasesim/checker"
)

// Host runs a sweep's runs on a host other than the event host, such as
// the goroutine host's worker processes: Config.Host with
// Config.HostScenarios instead of Config.Scenarios and Config.Impl. The
// sweep numbers, shards, aggregates and merges its runs exactly as it does
// the event host's; only executing one seed is the host's. Run is called
// from Config.Parallel goroutines at once.
type Host interface {
	// Impl names the implementation the host runs, as summaries and
	// failures name it.
	Impl() string
	// Run runs one seed of the named scenario and returns it judged. With
	// verify it also confirms the seed's determinism in the host's own way
	// (a failure under PropertyDeterminism when it does not hold). An error
	// is the harness's, never a verdict on the implementation: it stops the
	// sweep; one that comes after ctx was cancelled only drops the run.
	Run(ctx context.Context, scenario string, seed uint64, verify bool) (HostRun, error)
}

// HostRun is one run a Host executed and judged, as plain data.
type HostRun struct {
	// Judgement is the checkers' results, metrics and coverage on the
	// run's history (checker.Judge).
	Judgement checker.Judgement
	// Spec is the history's specification, and Tasks whether the
	// implementation runs checkpointed tasks with side effects: together
	// they say which behaviours the coverage cannot reach
	// (Summary.CoverageNotApplicable).
	Spec  string
	Tasks bool
	// SimTime is the true time the history spans; Events the host's trace
	// events, or 0 when it counts none.
	SimTime time.Duration
	Events  uint64
	// TraceHash identifies the run's trace.
	TraceHash string
	// Failed lists what failed the run besides its violated properties,
	// each a pseudo-property (PropertyDeterminism, PropertyHost) with why.
	Failed []HostFailure
	// Replay is the line that reproduces the run, as the host's CLI runs it.
	Replay string
}

// HostFailure is one thing besides a violated property that failed a run.
type HostFailure struct {
	Property string
	Detail   string
}

// runHost executes run k on cfg.Host and reduces it to a record; it
// returns nil for a run that the sweep's cancellation cut short.
func (r *runner) runHost(ctx context.Context, k int, name string, seed uint64) *record {
	rec := &record{k: k, scenario: name, seed: seed}
	begin := time.Now()
	hr, err := r.cfg.Host.Run(ctx, name, seed, r.cfg.VerifyDeterminism)
	rec.wall = time.Since(begin)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil
	case err != nil:
		rec.harness = err
		return rec
	}
	rec.events, rec.sim = hr.Events, hr.SimTime
	rec.metrics, rec.coverage = hr.Judgement.Metrics, hr.Judgement.Coverage
	rec.spec, rec.tasks = hr.Spec, hr.Tasks
	rec.fillChecks(hr.Judgement.Checks)
	if rec.wall > 0 {
		rec.accel = rec.sim.Seconds() / rec.wall.Seconds()
	}
	var props []string
	var detail string
	for _, c := range hr.Judgement.Checks {
		if c.Status == checker.Violated && !slices.Contains(props, c.Property) {
			props = append(props, c.Property)
			detail = firstOf(detail, c.Property+" "+c.Name+": "+c.Summary)
		}
	}
	for _, f := range hr.Failed { // a run fails a property once, however many things failed it
		if !slices.Contains(props, f.Property) {
			props = append(props, f.Property)
		}
		detail = firstOf(detail, f.Property+": "+f.Detail)
	}
	if len(props) > 0 {
		rec.failure = &Failure{Scenario: name, Seed: seed, Impl: r.cfg.Host.Impl(), Properties: props,
			Detail: detail, TraceHash: hr.TraceHash, Replay: hr.Replay}
	}
	return rec
}
