package explore

import (
	"math/rand/v2"
	"slices"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// eventHost runs inputs on the event host, in process: the Host Explore
// uses when Config.Host is nil.
type eventHost struct {
	sc   scenarios.Scenario
	impl lease.Impl
}

func (e eventHost) Names() (string, string) { return e.sc.Name, e.impl.Name }

// Run executes the seed with the input's schedule (the scenario's own plan
// for a fresh draw).
func (e eventHost) Run(in Input) (Run, error) {
	out, err := scenarios.Execute(e.sc, in.Seed, scenarios.Options{Impl: e.impl, Schedule: scheduleOf(in)})
	if err != nil {
		return Run{}, err
	}
	tasks := e.impl.Capabilities.Checkpoints && e.impl.Capabilities.SideEffects &&
		(e.sc.Workers > 0 || e.sc.TaskSource != nil)
	return Run{Schedule: out.Schedule, Coverage: out.Coverage, Moments: Moments(out.History), Violated: Violation(out),
		Hash: out.TraceHash(), Spec: e.impl.Spec, Tasks: tasks}, nil
}

// Vocabulary is the scenario's nodes and nemesis as it runs against the
// implementation, and the protocol moments: the event triggers, and
// before-write where the implementation marks it.
func (e eventHost) Vocabulary() (Vocabulary, error) {
	fps := scenarios.Triggers()
	if slices.Contains(e.impl.Capabilities.Failpoints, lease.FailpointBeforeWrite) {
		fps = append(fps, lease.FailpointBeforeWrite)
	}
	nem := e.sc.NemesisFor(e.impl)
	return Vocabulary{Nodes: e.sc.NodesFor(e.impl), Targets: nem.Targets, Failpoints: fps, Boundaries: nem.Boundaries,
		Rho: nem.Rho, PauseMax: nem.PauseMax, Draw: func(r *rand.Rand) []faults.Event { return nem.Draw(r).Events }}, nil
}

// Shrink shrinks with scenarios.ShrinkSeed, the shrinker of simrun shrink.
func (e eventHost) Shrink(in Input, _ checker.Result, attempts int) (Shrunk, error) {
	s, err := scenarios.ShrinkSeed(e.sc, in.Seed, scenarios.Options{Impl: e.impl, Schedule: &in.Schedule}, attempts)
	if err != nil {
		return Shrunk{}, err
	}
	return Shrunk{Schedule: s.Schedule, Target: s.Target, Hash: s.Hash, Runs: s.Stats.Attempts,
		Exhausted: s.Stats.Exhausted}, nil
}

// scheduleOf is the schedule option of a run: nil for a fresh draw (the
// scenario's own plan for the seed).
func scheduleOf(in Input) *faults.Schedule {
	if in.Schedule.Version == 0 {
		return nil
	}
	s := in.Schedule
	return &s
}

// Violation returns the first property out violated that counts as a
// failure for a search (Counts). Nil means none.
func Violation(out *scenarios.Outcome) *checker.Result { return FirstViolation(out.Checks) }
