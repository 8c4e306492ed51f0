package reports

import (
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/scenarios"
)

// ProcessRun returns the run object and the report data of a real-time
// host's outcome (scenarios.HostProcess) that took wall of real time, its
// history recorded by producer. It is that host's one adapter to the
// reports, as EventRun is the event host's: the run object is the
// history's (NewRun), with the host, its determinism (statistical), no
// trace hash (no kernel traced the run: "none", as simrun check says of a
// file) and the schedule the host applied. The caller sets the replay
// line, which only it knows.
func ProcessRun(out *scenarios.Outcome, producer string, wall time.Duration) (Run, RunData) {
	d := RunData{History: out.History, Schedule: &out.Schedule, Meta: leasewire.Meta{Producer: producer,
		Determinism: history.Statistical, Scenario: out.Scenario, Seed: out.Seed}}
	r := NewRun(out.History, d.Meta, checker.Judgement{Checks: out.Checks, Metrics: out.Metrics, Coverage: out.Coverage})
	r.Impl, r.Host, r.TraceHash, r.WallSeconds = out.Impl, out.Host, "none", wall.Seconds()
	return r, d
}
