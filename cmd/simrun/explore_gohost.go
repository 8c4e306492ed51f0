package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/explore"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// explore searches a goroutine-host implementation's schedules with the
// same search as the event host's (package explore); only running one
// input differs. goExploreHost runs each input as a run job (a seed and
// the schedule that replaces its fault plan; a fresh draw is the seed
// with no schedule, the worker's own nemesis draw, read back from the
// outcome) in a serving worker, reads the seed's history file and judges
// it as simrun check does, so coverage and verdicts come from the same
// checker functions. A failure shrinks in the worker's shrink job, which
// runs scenarios.ShrinkSeed from the failing schedule: the one shrinker
// of simrun shrink and of the event host's explore.

// errNotReproducible is a failure the worker's shrinker could not
// reproduce: the goroutine host was not deterministic for that seed.
var errNotReproducible = errors.New("the violation did not reproduce when the worker ran the seed again to shrink it")

// goExploreHost runs explore's inputs in workers of a goroutine-host
// implementation (explore.Host).
type goExploreHost struct {
	ctx  context.Context
	g    *goImpl
	info gohost.ScenarioInfo
	pool *workerPool
	// lease is the lease the first run's history declares: the
	// boundaries mutations aim at.
	lease *history.Lease
}

// Names are the scenario's and the implementation's names.
func (x *goExploreHost) Names() (string, string) { return x.info.Name, x.g.Name }

// Run runs one input in a worker (once: the search does not verify each
// run; the replay of its failure does) and judges its history file.
func (x *goExploreHost) Run(in explore.Input) (explore.Run, error) {
	job := gohost.Job{Kind: gohost.JobRun, Scenario: x.info.Name, Seeds: []uint64{in.Seed}}
	if in.Schedule.Version != 0 {
		s := in.Schedule
		job.Schedule = &s
	}
	o, file, err := x.runJob(job)
	if err != nil {
		return explore.Run{}, err
	}
	_, j, data, err := judgeGoHistory(x.g, *o, file, false)
	if err != nil {
		return explore.Run{}, err
	}
	hash, err := parseHash(o.Hash)
	if err != nil {
		return explore.Run{}, internalErr(fmt.Errorf("%s seed %d: %w", x.g.Name, o.Seed, err))
	}
	h := data.History
	if x.lease == nil {
		x.lease = &h.Lease
	}
	return explore.Run{Schedule: o.Schedule, Coverage: j.Coverage, Moments: explore.Moments(h),
		Violated: explore.FirstViolation(j.Checks), Hash: hash, Spec: h.Spec, Tasks: len(h.Tasks) > 0}, nil
}

// runJob does a one-seed run job in a serving worker and returns its
// outcome and history file. Every error is the harness's: the scenario
// was checked, and the search only writes schedules of its nodes.
func (x *goExploreHost) runJob(job gohost.Job) (*gohost.OutcomeRecord, []byte, error) {
	wr, err := x.pool.run(x.ctx, job, true)
	if err != nil {
		return nil, nil, internalErr(err)
	}
	if err := errorRecord(x.g, wr); err != nil {
		return nil, nil, err
	}
	o, err := oneOutcome(wr.records)
	if err != nil {
		return nil, nil, err
	}
	return o, wr.histories[o.Seed], nil
}

// errorRecord is the first error record of a worker's job, as an internal
// error.
func errorRecord(g *goImpl, wr workerRun) error {
	for _, r := range wr.records {
		if r.Error != nil {
			return internalErr(fmt.Errorf("%s: %s\n%s", g.Name, r.Error.Message, outputTail(wr.output)))
		}
	}
	return nil
}

// Vocabulary is the scenario's nodes, fault targets and failpoints, as
// its worker lists them, and the boundaries of the lease the first run
// declared: TTL, TTL×(1±ρ), the renew interval, request timeout, margin
// and backoff, where the implementation has them. Pauses are stretched to
// at most three TTLs, as the nemesis's default bound.
func (x *goExploreHost) Vocabulary() (explore.Vocabulary, error) {
	if x.lease == nil {
		panic("simrun: explore asked for the vocabulary before the first run")
	}
	l := *x.lease
	rho := float64(l.RhoPPB) / 1e9
	v := explore.Vocabulary{Nodes: x.info.Nodes, Targets: x.info.Targets, Failpoints: x.info.Failpoints,
		Boundaries: leaseBoundaries(l, rho), Rho: rho, PauseMax: 3 * l.TTL}
	if len(v.Targets) == 0 { // a worker built against a leasesim that did not list them
		v.Targets = x.info.Nodes
	}
	if len(v.Failpoints) == 0 {
		v.Failpoints = gohost.Triggers()
	}
	if v.PauseMax <= 0 {
		return v, internalErr(fmt.Errorf("%s %s: the history declares no lease TTL, which mutations need", x.g.Name, x.info.Name))
	}
	return v, nil
}

// leaseBoundaries are the positive durations of l that lease bugs live
// near, each once.
func leaseBoundaries(l history.Lease, rho float64) []time.Duration {
	var out []time.Duration
	for _, d := range []time.Duration{l.TTL, time.Duration(float64(l.TTL) * (1 - rho)), time.Duration(float64(l.TTL) * (1 + rho)),
		l.RenewInterval, l.RequestTimeout, l.Margin, l.BackoffMax} {
		if d > 0 && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// Shrink runs the worker's shrink job from the failing schedule.
func (x *goExploreHost) Shrink(in explore.Input, _ checker.Result, attempts int) (explore.Shrunk, error) {
	s := in.Schedule
	job := gohost.Job{Kind: gohost.JobShrink, Scenario: x.info.Name, Seeds: []uint64{in.Seed}, Schedule: &s, MaxAttempts: attempts}
	wr, err := x.pool.run(x.ctx, job, false)
	if err != nil {
		return explore.Shrunk{}, internalErr(err)
	}
	if len(wr.records) == 1 && wr.records[0].Error != nil {
		if k := wr.records[0].Error.Kind; k == gohost.ErrKindNotReproducible || k == gohost.ErrKindNothingToShrink {
			return explore.Shrunk{}, internalErr(fmt.Errorf("%s %s seed %d: %w (%s)", x.g.Name, x.info.Name, in.Seed,
				errNotReproducible, wr.records[0].Error.Message))
		}
	}
	if err := errorRecord(x.g, wr); err != nil {
		return explore.Shrunk{}, err
	}
	if len(wr.records) != 1 || wr.records[0].Shrunk == nil {
		return explore.Shrunk{}, internalErr(fmt.Errorf("a shrink worker wrote %d records, want one result", len(wr.records)))
	}
	r := wr.records[0].Shrunk
	hash, err := parseHash(r.Hash)
	if err != nil {
		return explore.Shrunk{}, internalErr(fmt.Errorf("%s seed %d: shrunk: %w", x.g.Name, r.Seed, err))
	}
	return explore.Shrunk{Schedule: r.Schedule, Hash: hash, Runs: r.Attempts, Exhausted: r.Exhausted,
		Target: checker.Result{Property: r.Target.Property, Name: r.Target.Name, Status: r.Target.Status,
			Summary: r.Target.Summary}}, nil
}

// replay runs the seed with the shrunk schedule again, twice in one
// worker (verification by repetition), and returns its outcome: the
// determinism the printed replay line will report.
func (x *goExploreHost) replay(seed uint64, s faults.Schedule) (*gohost.OutcomeRecord, error) {
	o, _, err := x.runJob(gohost.Job{Kind: gohost.JobRun, Scenario: x.info.Name, Seeds: []uint64{seed}, Schedule: &s,
		Verify: true})
	return o, err
}

// parseHash reads a trace hash of 16 hex digits.
func parseHash(s string) (uint64, error) {
	h, err := strconv.ParseUint(s, 16, 64)
	if err != nil || len(s) != 16 {
		return 0, fmt.Errorf("trace hash %q: want 16 hex digits", s)
	}
	return h, nil
}
