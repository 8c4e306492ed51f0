package reports

import (
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// EventRun returns the run object and the report data of an event-host
// outcome that took wall of real time. It is the event host's one adapter
// to the reports: the run object is the history's (NewRun), with what only
// the kernel knows (the implementation, the trace hash and its events, the
// replay line, the limit it stopped at, and its fault log, which has every
// record with its value where the history has windows). Nothing else in
// this package reads an outcome or a kernel type.
func EventRun(out *scenarios.Outcome, wall time.Duration) (Run, RunData) {
	d := RunData{History: out.History, Meta: leasewire.Meta{Scenario: out.Scenario, Seed: out.Seed, Determinism: history.Exact},
		Schedule: &out.Schedule}
	r := NewRun(out.History, d.Meta, checker.Judgement{Checks: out.Checks, Metrics: out.Metrics, Coverage: out.Coverage})
	r.Impl, r.Adapted = out.Impl, out.Adapted
	r.TraceHash, r.Events = out.Sim.TraceHashString(), out.Sim.Events
	r.SimSeconds, r.WallSeconds = out.Sim.Now.Seconds(), wall.Seconds()
	r.Faults, r.Replay = kernelFaults(out.Faults), out.ReplayCommand()
	if wall > 0 {
		r.Acceleration = r.SimSeconds / r.WallSeconds
	}
	if out.Sim.Err != nil {
		r.Stopped = out.Sim.Err.Error()
	}
	return r, d
}

// kernelFaults returns the kernel's fault log as the run's.
func kernelFaults(log []sim.FaultRecord) []Fault {
	out := make([]Fault, len(log))
	for i, f := range log {
		out[i] = Fault{At: history.Time(f.At), Kind: f.Kind.String(), Node: f.Node, Peer: f.Peer, Value: f.Value, Detail: f.Detail}
	}
	return out
}
