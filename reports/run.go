package reports

import (
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// Run is the JSON object of one run, as `simrun run --json` prints it. Field
// names are snake_case and stable once released.
type Run struct {
	// SchemaVersion is RunSchemaVersion: the version of this object's form.
	SchemaVersion int    `json:"schema_version"`
	Scenario      string `json:"scenario"`
	Impl          string `json:"impl"`
	Seed          uint64 `json:"seed"`
	// Adapted says how the scenario ran differently for this
	// implementation than the catalogue describes it (scenarios.Adaptations).
	Adapted      []string            `json:"adapted,omitempty"`
	TraceHash    string              `json:"trace_hash"`
	Events       uint64              `json:"events"`
	SimSeconds   float64             `json:"sim_seconds"`
	WallSeconds  float64             `json:"wall_seconds"`
	Acceleration float64             `json:"acceleration"`
	Faults       []sim.FaultRecord   `json:"faults"`
	Violations   []checker.Violation `json:"violations"`
	Properties   []checker.Result    `json:"properties"`
	Metrics      checker.Metrics     `json:"metrics"`
	// Replay is the line that reproduces the run, as every report shows it
	// (report.html too). NewRun takes it from the outcome, which builds it
	// with internal/repro, the one builder of reproduction lines; a caller
	// that knows a more exact line (a --schedule file) sets it before
	// writing the reports. Reports never build their own.
	Replay string `json:"replay"`
	// Stopped says why the run stopped early (a limit), if it did.
	Stopped string `json:"stopped,omitempty"`
	// Source is the history file a run object judged (simrun check), with
	// the producer that recorded it; empty for a run the simulator ran.
	Source   string `json:"source,omitempty"`
	Producer string `json:"producer,omitempty"`
	// Coverage names the rare behaviours the run reached
	// (checker.Behaviours), in their order.
	Coverage []string `json:"coverage"`
}

// RunSchemaVersion is the version of Run's JSON form.
const RunSchemaVersion = 1

// NewRun builds the run object of an outcome that took wall of real time.
func NewRun(out *scenarios.Outcome, wall time.Duration) Run {
	r := Run{
		SchemaVersion: RunSchemaVersion, Coverage: out.Coverage.Reached(),
		Scenario: out.Scenario, Impl: out.Impl, Seed: out.Seed, Adapted: out.Adapted,
		TraceHash: out.Sim.TraceHashString(), Events: out.Sim.Events,
		SimSeconds: out.Sim.Now.Seconds(), WallSeconds: wall.Seconds(),
		Faults: out.Faults, Properties: out.Checks, Metrics: out.Metrics,
		Replay: out.ReplayCommand(), Violations: []checker.Violation{},
	}
	if r.Faults == nil {
		r.Faults = []sim.FaultRecord{}
	}
	if wall > 0 {
		r.Acceleration = r.SimSeconds / r.WallSeconds
	}
	for _, p := range out.Checks {
		if p.Status == checker.Violated {
			r.Violations = append(r.Violations, p.Violations...)
		}
	}
	if out.Sim.Err != nil {
		r.Stopped = out.Sim.Err.Error()
	}
	return r
}
