package reports

import (
	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
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
	Adapted []string `json:"adapted,omitempty"`
	// Host names the host that ran the implementation ("goroutine"), and
	// Determinism how exactly the run reproduces (history.Determinism);
	// both empty for the event host, whose runs are exact.
	Host         string              `json:"host,omitempty"`
	Determinism  string              `json:"determinism,omitempty"`
	TraceHash    string              `json:"trace_hash"`
	Events       uint64              `json:"events"`
	SimSeconds   float64             `json:"sim_seconds"`
	WallSeconds  float64             `json:"wall_seconds"`
	Acceleration float64             `json:"acceleration"`
	Faults       []Fault             `json:"faults"`
	Violations   []checker.Violation `json:"violations"`
	Properties   []checker.Result    `json:"properties"`
	Metrics      checker.Metrics     `json:"metrics"`
	// Replay is the line that reproduces the run, as every report shows it
	// (report.html too). The host that ran it knows the line (the event
	// host builds it with internal/repro, the one builder of reproduction
	// lines); a caller that knows a more exact line (a --schedule file)
	// sets it before writing the reports. Reports never build their own.
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

// Fault is one entry of a run's fault log: what acted, on whom, and when,
// in true time. A host with a fault log of its own (the event host's
// kernel) lists every record of it, resumes and heals included, with
// their values; otherwise the log is the history's fault windows, one
// entry each at its start (FaultsOf).
type Fault struct {
	At   history.Time `json:"at_ns"`
	Kind string       `json:"kind"` // history's fault kinds (history.FaultKinds), or a producer's own
	Node string       `json:"node,omitempty"`
	Peer string       `json:"peer,omitempty"`
	// Value is the fault's size where it has one: a drift in parts per
	// billion, a split's number of groups, or nanoseconds (a pause, a
	// clock step, a link's latency).
	Value  int64  `json:"value,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// FaultsOf returns the fault log of a history that has no other: one entry
// per fault window, at its start.
func FaultsOf(windows []history.FaultWindow) []Fault {
	log := make([]Fault, len(windows))
	for i, w := range windows {
		log[i] = Fault{At: w.Start, Kind: w.Kind, Node: w.Node(), Peer: w.Peer(), Detail: w.Detail}
	}
	return log
}

// RunData is what a run's report files are drawn from besides its run
// object, all plain data: the history the checkers judged (with its fault
// windows), the header its history.jsonl gets, and the fault plan the host
// applied when it is known. Every host fills it in the same way, and so
// does `simrun check` for a history file, so a run and a check of its
// history.jsonl draw the same report.
type RunData struct {
	History *history.History
	// Meta is the history's header fields (producer, determinism, scenario,
	// seed; see leasewire.Meta for their defaults).
	Meta leasewire.Meta
	// Schedule is the fault plan the host applied, or nil when it is not
	// known (a history file): schedule.json is then not written.
	Schedule *faults.Schedule
	// Recorded, when set, is the history file as its host wrote it, which
	// History was read from (leasewire.ReadHistory): history.jsonl is then
	// these bytes, as they are, rather than History written again.
	Recorded []byte
}

// NewRun builds the run object of a history judged by j: the scenario and
// seed from meta, the true time the history spans, its fault windows as the
// fault log, the verdicts, metrics and coverage. The host that ran it sets
// what only it knows (the implementation, the trace hash, the events, the
// wall time, the replay line, a fault log of its own).
func NewRun(h *history.History, meta leasewire.Meta, j checker.Judgement) Run {
	r := Run{
		SchemaVersion: RunSchemaVersion, Coverage: j.Coverage.Reached(),
		Scenario: meta.Scenario, Seed: meta.Seed, Producer: meta.Producer, Determinism: string(meta.Determinism),
		SimSeconds: h.End.Duration().Seconds(), Faults: FaultsOf(h.Faults),
		Properties: j.Checks, Metrics: j.Metrics, Violations: []checker.Violation{},
	}
	for _, p := range j.Checks {
		if p.Status == checker.Violated {
			r.Violations = append(r.Violations, p.Violations...)
		}
	}
	return r
}
