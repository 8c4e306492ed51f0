package tune

import (
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/sweep"
)

// Result is the outcome of a tuning run: every configuration of the grid
// with its metrics over the seeds, the Pareto frontier, and the
// recommendation. It is the JSON object of `simrun tune --json`; field
// names are snake_case and stable. Everything but WallSeconds depends only
// on the Config (not on parallelism or timing).
type Result struct {
	// SchemaVersion is ResultSchemaVersion: the version of this object's form.
	SchemaVersion int `json:"schema_version"`
	// Workload is the workload file's path, Name the workload's name;
	// both empty for a goroutine-host implementation's tuning run
	// (RunKnobs), which runs Scenario instead (its stories, separated by
	// commas), naming the implementation in printed lines with Target's
	// arguments.
	Workload string   `json:"workload"`
	Scenario string   `json:"scenario,omitempty"`
	Target   []string `json:"target,omitempty"`
	Name     string   `json:"workload_name"`
	// WorkloadSeconds is the workload's duration (faults stop there);
	// Metrics.StoreWritesPerWorkloadSecond is per second of it.
	WorkloadSeconds float64 `json:"workload_seconds"`
	// Seeds is the seed range every valid configuration ran on, "A-B".
	Seeds     string `json:"seeds"`
	SeedFirst uint64 `json:"seed_first"`
	SeedLast  uint64 `json:"seed_last"`
	// Impl is the lease implementation that ran.
	Impl string `json:"impl"`
	// Rho and Margin went into every lease configuration.
	Rho    float64       `json:"rho"`
	Margin time.Duration `json:"margin_ns"`
	// Objective and Constraints are what the recommendation was chosen
	// by.
	Objective   Objective   `json:"objective"`
	Constraints Constraints `json:"constraints"`

	// Configs are the grid's configurations, TTL outermost, then renew
	// interval, then checkpoint policy, then election timeout (when the
	// grid has that axis), each in the order given.
	Configs []ConfigResult `json:"configs"`
	// ValidConfigs counts the configurations that ran; ParetoConfigs those
	// on the Pareto frontier.
	ValidConfigs  int `json:"valid_configs"`
	ParetoConfigs int `json:"pareto_configs"`
	// Recommended is the recommended configuration's label and
	// RecommendedIndex its index in Configs; nil and -1 when none is
	// recommended. Explanation says why in one sentence, or why not.
	Recommended      *string `json:"recommended"`
	RecommendedIndex int     `json:"recommended_index"`
	Explanation      string  `json:"explanation"`

	// Runs counts the finished runs; ViolatingRuns those that violated a
	// property (or stopped at a limit, or panicked). Any of them makes
	// `simrun tune` exit 1.
	Runs          int `json:"runs"`
	ViolatingRuns int `json:"violating_runs"`
	// Partial says the run was interrupted: some configurations ran on
	// fewer seeds or not at all, and nothing is recommended.
	Partial bool `json:"partial"`
	// Parallel is how many runs went at once; WallSeconds how long the
	// whole tuning run took, in real time.
	Parallel    int     `json:"parallel"`
	WallSeconds float64 `json:"wall_seconds"`
}

// ConfigResult is one configuration of the grid and what it measured.
type ConfigResult struct {
	// Label names the configuration: "ttl=5s renew=ttl/3 checkpoint=5u",
	// or a goroutine-host implementation's knobs:
	// "renew-interval=10s grace-period=50s".
	Label string `json:"label"`
	// Knobs are the goroutine-host implementation's knob values (RunKnobs);
	// the lease configuration's fields below are then empty.
	Knobs gohost.KnobValues `json:"knobs,omitempty"`
	// TTL is the lease TTL.
	TTL   string        `json:"ttl"`
	TTLNs time.Duration `json:"ttl_ns"`
	// Renew is the renew interval as given ("ttl/3" or "1s"), and
	// RenewInterval its value under this TTL.
	Renew         string        `json:"renew"`
	RenewInterval time.Duration `json:"renew_interval_ns"`
	// Checkpoint is the checkpoint policy as given ("5u", "30s" or
	// "none"), with its two settings.
	Checkpoint           string        `json:"checkpoint"`
	CheckpointEveryUnits int           `json:"checkpoint_every_units"`
	CheckpointInterval   time.Duration `json:"checkpoint_interval_ns"`
	// ElectionTimeout is the replicated store's election timeout ("1s"),
	// set only when the grid had that axis (Config.ElectionTimeouts).
	ElectionTimeout   string        `json:"election_timeout,omitempty"`
	ElectionTimeoutNs time.Duration `json:"election_timeout_ns,omitempty"`

	// Valid says the configuration is a usable lease configuration; if
	// not, InvalidReason says why and it did not run.
	Valid         bool   `json:"valid"`
	InvalidReason string `json:"invalid_reason"`

	// Runs counts the seeds it ran on.
	Runs    int     `json:"runs"`
	Metrics Metrics `json:"metrics"`
	// ViolatingRuns counts the runs that violated a property; Violations
	// lists the first MaxViolationsListed of them with their replay
	// commands.
	ViolatingRuns int         `json:"violating_runs"`
	Violations    []Violation `json:"violations"`
	// Violated counts the violating runs per property (RunKnobs).
	Violated map[string]int `json:"violated,omitempty"`
	// Unknown counts verdicts that could not be given, per property (a
	// porcupine search that ran out of time, say): never a pass.
	Unknown map[string]int `json:"unknown"`

	// Pareto says no other configuration is at least as good in p99
	// failover, re-executed fraction and store writes per second, and
	// better in one. Only configurations that ran on every seed without a
	// violation take part, and, if any of those saw a failover, only
	// those that did (see the package documentation).
	Pareto bool `json:"pareto"`
	// Feasible says it takes part and meets the constraints.
	Feasible bool `json:"feasible"`
	// Recommended marks the recommended configuration.
	Recommended bool `json:"recommended"`
	// Replay is the command that runs this configuration again on the
	// same seeds.
	Replay string `json:"replay"`
}

// ResultSchemaVersion is the version of Result's JSON form.
const ResultSchemaVersion = 1

// MaxViolationsListed bounds ConfigResult.Violations.
const MaxViolationsListed = 20

// Violation is one failing run of a configuration: the sweep's failure
// record (one type for a failing run everywhere), whose Replay is the
// `simrun run --workload ...` line that reproduces it with the same trace
// hash.
type Violation = sweep.Failure

// Metrics are one configuration's measurements, aggregated over its
// seeds: checker.Metrics (counts are totals over the runs, percentiles come
// from the sweep's mergeable histograms, within 1%, every JSON key means what
// it means in a run or a sweep), plus the one figure a tuner compares
// configurations by that a run cannot know: store writes per second of
// workload.
type Metrics struct {
	checker.Metrics

	// StoreWritesPerWorkloadSecond divides StoreWrites by the workload's
	// duration × runs. The drain after the workload (longer for a longer
	// TTL) adds its writes but not its time, so every configuration is
	// measured over the same time. (The embedded StoreWritesPerSecond
	// divides by SimTime, drains included, as everywhere else.)
	StoreWritesPerWorkloadSecond float64 `json:"store_writes_per_workload_s"`
	// P1MarginMin is the smallest P1 margin of any run (below zero, two
	// holders' beliefs overlapped by that much), when P1 judged some
	// (RunKnobs: a leadership lease's overlap).
	P1MarginMin *time.Duration `json:"p1_margin_min_ns,omitempty"`
}

// metricsOf turns a sweep's aggregate metrics into a configuration's, with
// store writes per second of workload.
func metricsOf(m checker.Metrics, workload time.Duration) Metrics {
	out := Metrics{Metrics: m}
	out.FailoverSamples, out.TaskLatencySamples, out.DetectionSamples = nil, nil, nil // not in the JSON; a result need not hold them
	if covered := workload.Seconds() * float64(m.Runs); covered > 0 {
		out.StoreWritesPerWorkloadSecond = float64(m.StoreWrites) / covered
	}
	return out
}

// completed reports whether c ran on every seed and nothing failed.
func (c ConfigResult) completed(seeds int) bool {
	return c.Valid && c.Runs == seeds && c.ViolatingRuns == 0
}

// participants reports which configurations take part in the frontier and
// the recommendation: those that ran on every seed with nothing failing
// and, when any of them saw a failover, that saw at least one themselves.
// A p99 failover without samples is unknown, not zero: the config was
// lucky that no crash caught it holding a task, and more seeds would
// give it some.
func participants(configs []ConfigResult, seeds int) []bool {
	part := make([]bool, len(configs))
	anyFailover := false
	for i, c := range configs {
		part[i] = c.completed(seeds)
		anyFailover = anyFailover || (part[i] && c.Metrics.Failovers > 0)
	}
	if anyFailover {
		for i, c := range configs {
			part[i] = part[i] && c.Metrics.Failovers > 0
		}
	}
	return part
}
