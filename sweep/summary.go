package sweep

import (
	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/internal/dist"
)

// SummarySchema is the version of a Summary's JSON form (schema_version,
// as in every --json output of simrun). Merge refuses summaries of another
// version: their distributions and seed lists mean other things.
const SummarySchema = 3

// Summary is the JSON object of a sweep, as `simrun sweep --json` prints it
// and `simrun merge` combines. Field names are snake_case and stable. Its
// size is bounded whatever the number of runs: distributions are
// fixed-size histograms, and every list has a cap and a count of the rest.
type Summary struct {
	Schema    int      `json:"schema_version"`
	Scenarios []string `json:"scenarios"`
	Impl      string   `json:"impl"`
	// Knobs are the knob settings of a goroutine-host implementation the
	// runs used (gohost.Knob), NAME=VALUE in name order as --knob takes
	// them; none for the knobs' defaults and on the event host.
	Knobs []string `json:"knobs,omitempty"`
	// Skipped are the scenarios asked for that Impl does not support, each
	// with the reason; they are not in Scenarios and ran no seed.
	Skipped []Skipped `json:"skipped,omitempty"`
	// Adapted says how scenarios ran differently for Impl than the
	// catalogue describes them (optional workers left out, for example).
	Adapted []Adaptation `json:"adapted,omitempty"`
	// Seeds is the seed set asked for, as --seeds reads it ("1-500",
	// "1-5,9"), SeedFirst and SeedLast its ends; Shard says which part of
	// it this summary covers ("1/1" for all of it, "1,3/4" for a merge of
	// some shards).
	Seeds     string `json:"seeds"`
	SeedFirst uint64 `json:"seed_first"`
	SeedLast  uint64 `json:"seed_last"`
	Shard     string `json:"shard"`
	// Rerun names the summary whose failing runs this sweep re-ran
	// (sweep --rerun-failures), if it did.
	Rerun string `json:"rerun,omitempty"`
	// Runs is how many (scenario, seed) runs finished; RunsExpected how
	// many the shards it covers hold. Partial says that some never ran:
	// the sweep was interrupted, or (after a merge) MissingShards lists
	// the shards that were not merged in, such as "2/4".
	Runs          int      `json:"runs"`
	RunsExpected  int      `json:"runs_expected"`
	Partial       bool     `json:"partial"`
	MissingShards []string `json:"missing_shards,omitempty"`
	// Failures are the runs with a violated property, a limit hit, or a
	// determinism mismatch, in (scenario, seed) order, at most
	// MaxFailures; FailuresOmitted counts the rest.
	Failures        []Failure `json:"failures"`
	FailuresOmitted int       `json:"failures_omitted"`
	// ByProperty maps a property ("P1".."P6", "limit", "determinism", and
	// "error" or "panic" for a run that could not finish) to the failing
	// runs' seeds per scenario, run-length encoded and bounded.
	ByProperty map[string]map[string]SeedSet `json:"by_property"`
	// Unknown counts unknown verdicts per property (never a pass), not
	// counting those that are unknown only because a run exceeded an
	// assumption. UnknownRuns counts the runs with such a verdict, and
	// UnknownReasons counts them by why ("P3: no history to check"), at
	// most MaxReasons reasons, the rest under "other".
	Unknown        map[string]int `json:"unknown"`
	UnknownRuns    int            `json:"unknown_runs"`
	UnknownReasons map[string]int `json:"unknown_reasons"`
	// AssumptionExceeded counts runs whose P1 overlap came from clock
	// drift beyond rho: the property's assumption broken, not a bug.
	AssumptionExceeded int `json:"assumption_exceeded"`
	// PerScenario counts runs and failing runs per scenario.
	PerScenario map[string]ScenarioCounts `json:"per_scenario"`
	// VerifyDeterminism says every run was executed twice and its trace
	// hashes compared; the runs whose hashes differed fail under
	// "determinism".
	VerifyDeterminism bool `json:"verify_determinism"`

	Events           uint64  `json:"events"`
	SimSeconds       float64 `json:"sim_seconds"`
	WallSeconds      float64 `json:"wall_seconds"` // elapsed real time of the sweep
	CPUSeconds       float64 `json:"cpu_seconds"`  // sum of the runs' own wall times
	EventsPerSecond  float64 `json:"events_per_second"`
	RunsPerSecond    float64 `json:"runs_per_second"`
	MeanAcceleration float64 `json:"mean_acceleration"`
	Parallel         int     `json:"parallel"`

	// Metrics aggregates the runs' metrics: counters add up, and the
	// percentiles are those of the Failover, TaskLatency and Detection
	// histograms.
	Metrics checker.Metrics `json:"metrics"`
	// Failover, TaskLatency and Margin are distributions across runs, as
	// fixed-size histograms (exact counts, quantiles within 1%): every
	// failover time, every task's completion latency, and each run's P1
	// minimum margin (below zero is an overlap).
	Failover    dist.Histogram `json:"failover"`
	TaskLatency dist.Histogram `json:"task_latency"`
	Margin      dist.Histogram `json:"p1_margin"`
	// Detection is every failure detector's detection time (P8, from a
	// member's stop to its declaration), absent when no run had one.
	Detection dist.Histogram `json:"detection,omitzero"`
	// Coverage counts how often the runs reached each rare behaviour of the
	// protocol (checker.Behaviours); a zero is a behaviour no run reached.
	Coverage Coverage `json:"coverage"`
	// CoverageNotApplicable are the behaviours Impl cannot reach (those of
	// leasesim's protocol for an implementation with a specification of
	// its own, those of checkpointed tasks for one without checkpoints):
	// counted, but never flagged as unreached.
	CoverageNotApplicable []string `json:"coverage_not_applicable,omitempty"`
}

// ScenarioCounts counts one scenario's runs in a sweep.
type ScenarioCounts struct {
	Runs   int `json:"runs"`
	Failed int `json:"failed"`
}

// Failed is how many runs failed, listed or not.
func (s Summary) Failed() int { return len(s.Failures) + s.FailuresOmitted }
