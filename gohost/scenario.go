package gohost

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
)

// Scenario is a goroutine-host story: the run a seed builds, faults drawn
// from the seed, what must happen for the run to mean anything, and how
// the checkers judge it. Execute runs it for one seed, Shrink makes a
// failing seed's schedule smaller.
type Scenario struct {
	// Name identifies the scenario ("leader-cut-off"); Doc is one line
	// on what it tests, Story the paragraph a reader needs.
	Name, Doc, Story string
	// Config builds the run for a seed: the nodes, the explicit faults,
	// the duration and the history header. It must depend on nothing but
	// the seed.
	Config func(seed uint64) Config
	// Nemesis, when set, draws more faults from the seed; they are merged
	// into Config's schedule (a drawn event that contradicts an explicit
	// one is dropped). Its Targets and Partitionable name the nodes.
	Nemesis *faults.Nemesis
	// Premises are what must have happened; one that did not makes the
	// run unknown.
	Premises []Premise
	// Check configures the checkers (the spec, properties to skip).
	Check checker.Options
}

// Options changes how Execute runs a scenario.
type Options struct {
	// Schedule, when set, replaces the fault plan (Config's schedule and
	// the nemesis's draw): replay and shrinking run schedules this way.
	Schedule *faults.Schedule
	// Verify runs the seed twice and compares the traces.
	Verify bool
}

// Outcome is one seed's run of a scenario and its verdicts.
type Outcome struct {
	Scenario string
	Seed     uint64
	// Schedule is the fault plan that was applied.
	Schedule faults.Schedule
	// Result is the host's result: trace, hash, determinism level,
	// history, leaks and problems.
	Result Result
	// Checks are the checkers' verdicts, in property order, with the
	// premise verdict last when the scenario declares premises.
	Checks []checker.Result
}

// Execute runs sc for seed: it builds the run, merges the nemesis's draw
// into its schedule (unless opts.Schedule replaces the plan), runs it,
// evaluates the premises and runs the checkers on the history. An
// unusable scenario fails t.
func Execute(t *testing.T, sc Scenario, seed uint64, opts Options) *Outcome {
	t.Helper()
	cfg, err := sc.plan(seed, opts.Schedule)
	if err != nil {
		t.Fatalf("gohost: scenario %s seed %d: %v", sc.Name, seed, err)
	}
	cfg.Verify = cfg.Verify || opts.Verify
	res := Run(t, cfg, seed)
	res.History.Premises = evaluate(sc.Premises, res.History)
	return &Outcome{Scenario: sc.Name, Seed: seed, Schedule: cfg.Schedule, Result: res,
		Checks: checker.Check(res.History, sc.Check)}
}

// plan returns the run's config with its fault plan: override if given,
// else Config's schedule with the nemesis's draw for seed merged in.
func (sc Scenario) plan(seed uint64, override *faults.Schedule) (Config, error) {
	cfg := sc.Config(seed)
	if override != nil {
		cfg.Schedule = *override
		return cfg, nil
	}
	if sc.Nemesis == nil {
		return cfg, nil
	}
	if err := sc.Nemesis.Validate(); err != nil {
		return cfg, fmt.Errorf("nemesis: %w", err)
	}
	r := rand.New(rand.NewPCG(mix(seed, "nemesis", 0), mix(seed, "nemesis", 1)))
	plan := cfg.Schedule
	plan.Version = max(plan.Version, faults.Version)
	if plan.HealAt == 0 {
		plan.HealAt = sc.Nemesis.Phase
	}
	merged, err := faults.Merge(plan, sc.Nemesis.Draw(r).Events, cfg.nodeNames())
	if err != nil {
		return cfg, fmt.Errorf("fault plan: %w", err)
	}
	cfg.Schedule = merged
	return cfg, nil
}

// Violated returns the checks that found a violation.
func (o *Outcome) Violated() []checker.Result {
	var out []checker.Result
	for _, r := range o.Checks {
		if r.Status == checker.Violated {
			out = append(out, r)
		}
	}
	return out
}

// Verdict returns the status of property ("P1" … "P6", "premise"), or ""
// when it was not checked.
func (o *Outcome) Verdict(property string) checker.Status {
	for _, r := range o.Checks {
		if r.Property == property {
			return r.Status
		}
	}
	return ""
}

// Failed reports whether the run found something wrong: a property
// violated, a divergence, a leaked goroutine or another problem of the
// host (Result.Err).
func (o *Outcome) Failed() bool { return len(o.Violated()) > 0 || o.Result.Err() != nil }

// Premises returns the premise records the checkers judged.
func (o *Outcome) Premises() []history.PremiseRecord { return o.Result.History.Premises }
