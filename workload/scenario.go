package workload

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// Scenario reads the workload file at path once (see Inspect) and returns
// the scenario that replays it under the lease configuration cfg.
func Scenario(path string, cfg lease.Config) (scenarios.Scenario, error) {
	return ScenarioOf(File(path), cfg)
}

// ScenarioOf is Scenario for a workload opened by open.
func ScenarioOf(open Opener, cfg lease.Config) (scenarios.Scenario, error) {
	p, err := Inspect(open)
	if err != nil {
		return scenarios.Scenario{}, err
	}
	return p.Scenario(open, cfg)
}

// Scenario returns the scenario that replays the plan's workload, opened
// by open, under cfg. A tuner inspects a workload once and calls this for
// every configuration:
//
//   - Workers are the header's workers, "w1".."wN"; Link is the header's
//     latency and loss;
//   - TaskSource opens the workload again on every run and streams its
//     tasks, so parallel runs and many seeds keep memory flat;
//   - Faults are the plan's explicit faults; RandomFaults draws the
//     environment's GC pauses and crashes from the run's seed, the same
//     for every cfg (common random numbers), never contradicting the
//     explicit ones;
//   - HealAt is the workload's duration: faults stop there;
//   - Duration adds a drain long enough for the last task to finish (see
//     Plan.Drain).
func (p Plan) Scenario(open Opener, cfg lease.Config) (scenarios.Scenario, error) {
	h := p.Header
	drawer := newDrawer(p)
	sc := scenarios.Scenario{
		Name:         h.Name,
		Doc:          fmt.Sprintf("workload %s: %d tasks on %d workers over %v", h.Name, p.Tasks, h.Workers, p.Duration),
		Story:        p.story(),
		Config:       cfg,
		Link:         &sim.LinkConfig{Latency: h.Env.latency(), Loss: h.Env.Loss},
		Workers:      h.Workers,
		TaskSource:   func(r *rand.Rand) (scenarios.TaskSource, error) { return Tasks(open, r) },
		Faults:       p.Faults,
		RandomFaults: drawer.draw,
		HealAt:       p.Duration,
		Duration:     p.Duration + p.Drain(cfg),
	}
	if err := sc.Validate(); err != nil {
		return scenarios.Scenario{}, fmt.Errorf("workload %s: %w", h.Name, err)
	}
	return sc, nil
}

// Drain is how long a run goes on after the workload's duration, so that
// every task that arrived can finish and the liveness property (P4) can
// give a verdict rather than "unknown": P4's bound after a heal
// (checker.LivenessBound: a restarted grantor's grace period, a stale
// lease running out, a backoff, two request timeouts, slack), plus the
// longest task's work, plus four one-way latencies at their largest for
// the completing write and checkpoint, plus two seconds.
func (p Plan) Drain(cfg lease.Config) time.Duration {
	return checker.LivenessBound(leasewire.Lease(cfg)) + p.WorkMax + 4*distMax(p.Header.Env.latency()) + 2*time.Second
}

// story tells what a run of the workload does, for `simrun list`.
func (p Plan) story() string {
	h := p.Header
	lat := h.Env.latency()
	s := fmt.Sprintf("%d workers run %d tasks (%d units) that arrive over %v, on links with %s latency from %v to %v"+
		" and %g loss. %d explicit fault events (crashes, restarts, pauses, deploys expanded)",
		h.Workers, p.Tasks, p.Units, p.Duration, lat.Kind, lat.Min, distMax(lat), h.Env.Loss, len(p.Faults.Events))
	if gc := h.Env.GCPause; gc != nil {
		s += fmt.Sprintf("; random GC pauses %g a minute per worker (p50 %v, p99 %v, max %v)", gc.PerMinute, gc.P50, gc.P99, gc.Max)
	}
	if h.Env.CrashPerHour > 0 {
		s += fmt.Sprintf("; random crashes %g an hour per worker, each down %v", h.Env.CrashPerHour, h.Env.restartAfter())
	}
	return s + ". Faults stop when the workload ends; every task must then finish, with every property holding."
}

// Tasks opens the workload and streams its tasks in arrival order. A task
// with a unit_time_dist gets its unit time drawn from r, one draw per such
// task in file order. The file is closed when the source ends, or by the
// source's Close method (it implements io.Closer); a source abandoned
// before its end without Close leaves the file to be closed when it is
// garbage collected.
func Tasks(open Opener, r *rand.Rand) (scenarios.TaskSource, error) {
	rc, err := open()
	if err != nil {
		return nil, fmt.Errorf("workload: open: %w", err)
	}
	rd, err := NewReader(rc)
	if err != nil {
		rc.Close()
		return nil, err
	}
	return &taskSource{rc: rc, r: rd, rand: r}, nil
}

// taskSource is a scenarios.TaskSource over a workload file.
type taskSource struct {
	rc   io.ReadCloser
	r    *Reader
	rand *rand.Rand
	err  error
	done bool
}

// Next returns the next task, or false at the end.
func (s *taskSource) Next() (scenarios.TaskSpec, bool) {
	for !s.done {
		e, err := s.r.Next()
		if err != nil {
			s.finish(err)
			break
		}
		if e.Type != TypeTask {
			continue
		}
		unit := e.UnitTime
		if d := e.UnitTimeDist; d != nil {
			unit = d.Sample(s.rand)
		}
		return scenarios.TaskSpec{ID: e.ID, Arrival: e.At, Units: e.Units, UnitTime: unit}, true
	}
	return scenarios.TaskSpec{}, false
}

// Err says why the source ended early, if it did.
func (s *taskSource) Err() error { return s.err }

// Close closes the file early, for a run that stops before its tasks end.
// It may be called more than once.
func (s *taskSource) Close() error {
	if s.done {
		return nil
	}
	s.finish(io.EOF)
	return s.err
}

func (s *taskSource) finish(err error) {
	s.done = true
	if err != io.EOF {
		s.err = err
	}
	if cerr := s.rc.Close(); cerr != nil && s.err == nil {
		s.err = fmt.Errorf("workload: close: %w", cerr)
	}
}
