package sweep

import (
	"github.com/leasesim/leasesim/checker"
)

// Summary is the JSON object of a sweep, as `simrun sweep --json` prints it
// and `simrun merge` combines. Field names are snake_case and stable.
type Summary struct {
	Scenarios []string `json:"scenarios"`
	Impl      string   `json:"impl"`
	// SeedFirst and SeedLast are the seed range asked for; Shard says which
	// part of it this summary covers ("1/1" for all of it).
	SeedFirst uint64 `json:"seed_first"`
	SeedLast  uint64 `json:"seed_last"`
	Shard     string `json:"shard"`
	// Runs is how many (scenario, seed) runs finished; Partial says the
	// sweep was interrupted before every run finished.
	Runs    int  `json:"runs"`
	Partial bool `json:"partial"`
	// RunsExpected is how many runs the shard holds: Runs when the sweep
	// was not interrupted.
	RunsExpected int `json:"runs_expected"`
	// Failures are the runs with a violated property, a limit hit, or a
	// determinism mismatch, in (scenario, seed) order.
	Failures []Failure `json:"failures"`
	// FailuresOmitted counts failing runs left out of Failures because it
	// holds at most MaxFailures; ByProperty still lists their seeds.
	FailuresOmitted int `json:"failures_omitted,omitempty"`
	// ByProperty maps a property ("P1".."P6", "limit", "determinism", and
	// "error" or "panic" for a run that could not finish) to the failing
	// runs' seeds per scenario, in seed order.
	ByProperty map[string]map[string][]uint64 `json:"by_property"`
	// Unknown counts unknown verdicts per property (never a pass).
	Unknown map[string]int `json:"unknown"`
	// PerScenario counts runs and failing runs per scenario.
	PerScenario map[string]ScenarioCounts `json:"per_scenario"`
	// AssumptionExceeded counts runs whose P1 overlap came from drift
	// beyond rho.
	AssumptionExceeded int `json:"assumption_exceeded"`

	Events            uint64  `json:"events"`
	SimSeconds        float64 `json:"sim_seconds"`
	WallSeconds       float64 `json:"wall_seconds"` // elapsed real time of the sweep
	CPUSeconds        float64 `json:"cpu_seconds"`  // sum of the runs' own wall times
	EventsPerSecond   float64 `json:"events_per_second"`
	SeedsPerSecond    float64 `json:"seeds_per_second"`
	MeanAcceleration  float64 `json:"mean_acceleration"`
	Parallel          int     `json:"parallel"`
	VerifyDeterminism bool    `json:"verify_determinism"`

	// Metrics aggregates the runs' metrics: counters add up, and the
	// percentiles are over FailoverSeconds and TaskLatencySeconds.
	Metrics checker.Metrics `json:"metrics"`
	// FailoverSeconds, TaskLatencySeconds and MarginSeconds are histogram
	// samples across runs, sorted ascending: every failover time, every
	// task's completion latency, and each run's P1 minimum margin. Each
	// holds at most MaxSamples, the first ones in (scenario, seed) order.
	// They are also what Merge recomputes percentiles from.
	FailoverSeconds    []float64 `json:"failover_seconds,omitempty"`
	TaskLatencySeconds []float64 `json:"task_latency_seconds,omitempty"`
	MarginSeconds      []float64 `json:"margin_seconds,omitempty"`
}

// Failure is one failing run.
type Failure struct {
	Scenario   string   `json:"scenario"`
	Seed       uint64   `json:"seed"`
	Properties []string `json:"properties"` // violated properties, or "limit" / "determinism"
	Detail     string   `json:"detail"`     // the first violation's summary
	TraceHash  string   `json:"trace_hash"`
	Replay     string   `json:"replay"`
}

// ScenarioCounts counts one scenario's runs in a sweep.
type ScenarioCounts struct {
	Runs   int `json:"runs"`
	Failed int `json:"failed"`
}
