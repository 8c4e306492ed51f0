package tune

import (
	"log/slog"
	"math"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/workload"
)

// The drift bound and safety margin of the built-in scenarios; a CLI
// offers them as defaults.
const (
	DefaultRho    = 0.01
	DefaultMargin = 50 * time.Millisecond
)

// MaxConfigs bounds the grid: TTLs × renews × checkpoints (× election
// timeouts).
const MaxConfigs = 10_000

// Config says what to tune: a workload, the grid of lease configurations
// to try on it, the seeds every configuration runs on, and what the
// recommendation should optimise under which limits.
type Config struct {
	// Workload is the path of the workload file. It names the workload in
	// the result and in replay commands; Open, if set, reads it.
	Workload string
	// Open opens the workload for one pass; nil means
	// workload.File(Workload).
	Open workload.Opener

	// The grid: every TTL × every renew interval × every checkpoint
	// policy, in this order (TTL outermost).
	TTLs        []time.Duration
	Renews      []Renew
	Checkpoints []Checkpoint
	// ElectionTimeouts, when not empty, is a fourth axis, innermost: the
	// election timeouts of a replicated store (lease.Config's). Only an
	// implementation that declares lease.Capabilities.ElectionTick takes
	// it (CheckElectionTimeouts); empty leaves every run at the
	// implementation's default.
	ElectionTimeouts []time.Duration
	// Rho and Margin go into every lease configuration as given (zero is
	// a valid drift bound and a valid margin); DefaultRho and
	// DefaultMargin are the built-in scenarios' values.
	Rho    float64
	Margin time.Duration

	// Impl is the lease implementation under test; the zero value means
	// lease.Correct(). A user's own implementation, or a mutant, is tuned
	// the same way.
	Impl lease.Impl

	// Seeds are the seeds every valid configuration runs on: the same for
	// all of them (common random numbers), so that differences come from
	// the configuration, not from the draw.
	Seeds sweep.Seeds
	// Parallel is how many runs go at once; zero means every core.
	Parallel int
	// Check configures the checkers; every property is checked on every
	// run (Skip is refused: a tuning run that checked nothing could not
	// say that a configuration is safe).
	Check checker.Options

	// Objective is what the recommendation minimises; the zero value is
	// ObjectiveFailoverP99.
	Objective Objective
	// Constraints are the limits a recommended configuration must meet.
	Constraints Constraints

	// Logger receives a line per configuration; nil discards.
	Logger *slog.Logger
}

// Objective is what a recommendation minimises.
type Objective string

// The objectives. Ties are broken by the others, in this order.
const (
	ObjectiveFailoverP99    Objective = "p99-failover"     // the 99th percentile of failover time
	ObjectiveReexecuted     Objective = "reexecuted"       // the fraction of unit executions that were re-executions
	ObjectiveStoreWrites    Objective = "store-writes"     // durable writes of the lease store per second
	ObjectiveTaskLatencyP99 Objective = "task-latency-p99" // the 99th percentile of task completion latency
	// A failure detector's (P7, P8; tuned over a goroutine-host
	// implementation's knobs): how often it suspected a member that
	// renewed within its rules, and how long it took at most to declare a
	// stopped one dead.
	ObjectiveFalseSuspicions Objective = "false-suspicions"
	ObjectiveDetectionMax    Objective = "detection-max"
)

// Objectives lists every objective in tie-breaking order.
func Objectives() []Objective {
	return []Objective{ObjectiveFailoverP99, ObjectiveReexecuted, ObjectiveStoreWrites, ObjectiveTaskLatencyP99,
		ObjectiveFalseSuspicions, ObjectiveDetectionMax}
}

// ParseObjective reads an objective by its name.
func ParseObjective(s string) (Objective, error) {
	for _, o := range Objectives() {
		if string(o) == s {
			return o, nil
		}
	}
	return "", invalidf("", "unknown objective %q (want p99-failover, reexecuted, store-writes, task-latency-p99, "+
		"false-suspicions or detection-max)", s)
}

// Constraints are upper limits on a recommended configuration's metrics.
// A nil field sets no limit.
type Constraints struct {
	// MaxStoreWritesPerSecond limits Metrics.StoreWritesPerWorkloadSecond:
	// store writes per second of workload (--max-store-writes), not the
	// per-simulated-second StoreWritesPerSecond.
	MaxStoreWritesPerSecond *float64 `json:"max_store_writes_per_workload_s"`
	// MaxReexecutedFraction limits Metrics.ReexecutedFraction, in [0, 1].
	MaxReexecutedFraction *float64 `json:"max_reexecuted_fraction"`
	// MaxFailoverP99 limits Metrics.FailoverP99.
	MaxFailoverP99 *time.Duration `json:"max_failover_p99_ns"`
	// MaxFalseSuspicions limits Metrics.FalseSuspicions, over all the
	// configuration's runs, and MaxDetection Metrics.DetectionMax: a
	// failure detector's (a goroutine-host tuning run's).
	MaxFalseSuspicions *int           `json:"max_false_suspicions,omitempty"`
	MaxDetection       *time.Duration `json:"max_detection_ns,omitempty"`
}

// withDefaults checks cfg and fills in its defaults.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Open == nil {
		if cfg.Workload == "" {
			return cfg, invalidf("workload", "missing: give the workload file")
		}
		cfg.Open = workload.File(cfg.Workload)
	}
	cfg.Impl = cfg.Impl.OrCorrect()
	if cfg.Objective == "" {
		cfg.Objective = ObjectiveFailoverP99
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, cfg.validate()
}

// validate reports the first field that makes cfg unusable.
func (cfg Config) validate() error {
	switch {
	case len(cfg.TTLs) == 0:
		return invalidf("ttls", "empty: give at least one TTL")
	case len(cfg.Renews) == 0:
		return invalidf("renews", "empty: give at least one renew interval")
	case len(cfg.Checkpoints) == 0:
		return invalidf("checkpoints", "empty: give at least one checkpoint policy")
	case cfg.gridSize() > MaxConfigs:
		return invalidf("ttls", "%d × %d × %d × %d configs exceed the limit of %d", len(cfg.TTLs), len(cfg.Renews),
			len(cfg.Checkpoints), max(len(cfg.ElectionTimeouts), 1), MaxConfigs)
	case math.IsNaN(cfg.Rho) || cfg.Rho < 0 || cfg.Rho >= 0.5:
		return invalidf("rho", "must lie in [0, 0.5), got %v", cfg.Rho)
	case cfg.Margin < 0:
		return invalidf("margin", "must not be negative, got %v", cfg.Margin)
	case cfg.Parallel < 0:
		return invalidf("parallel", "must not be negative, got %d", cfg.Parallel)
	case cfg.Check.Skip:
		return invalidf("check.skip", "a tuning run checks every property on every run")
	}
	if err := cfg.Seeds.Validate(); err != nil {
		return invalidf("seeds", "%v", err)
	}
	if runs := cfg.Seeds.Count(); runs > sweep.MaxRuns/cfg.gridSize() {
		return invalidf("seeds", "%d seeds on every config exceed %d runs", runs, sweep.MaxRuns)
	}
	if _, err := ParseObjective(string(cfg.Objective)); err != nil {
		return &InputError{Field: "objective", Msg: err.Error()}
	}
	if err := cfg.validateGrid(); err != nil {
		return err
	}
	return cfg.Constraints.validate()
}

// validateGrid checks each grid value on its own; whether a combination
// is a usable lease configuration is the grid's business (an invalid one
// is reported, not refused).
func (cfg Config) validateGrid() error {
	for i, ttl := range cfg.TTLs {
		if ttl <= 0 {
			return invalidf("ttls", "value %d: must be positive, got %v", i+1, ttl)
		}
	}
	for i, r := range cfg.Renews {
		if r.Divisor < 0 || r.Divisor > maxDivisor || (r.Divisor == 0) == (r.Interval <= 0) {
			return invalidf("renews", "value %d: set a positive Interval or a Divisor in [1, %d], not both", i+1, maxDivisor)
		}
	}
	for i, c := range cfg.Checkpoints {
		if c.EveryUnits < 0 || c.Interval < 0 || (c.EveryUnits > 0 && c.Interval > 0) || c.EveryUnits > maxEveryUnits {
			return invalidf("checkpoints", "value %d: set EveryUnits in [1, %d], a positive Interval, or neither (none)",
				i+1, maxEveryUnits)
		}
	}
	if err := CheckElectionTimeouts(cfg.Impl, cfg.ElectionTimeouts); err != nil {
		return &InputError{Field: "election_timeouts", Msg: err.Error()}
	}
	return nil
}

// CheckElectionTimeouts reports why impl cannot run with the election
// timeouts ds, or nil: an implementation that does not declare
// lease.Capabilities.ElectionTick has none to set (it would ignore the
// knob, and every value would measure the same store), and one that does
// counts it in whole ticks, more than one.
func CheckElectionTimeouts(impl lease.Impl, ds []time.Duration) error {
	if len(ds) == 0 {
		return nil
	}
	tick := impl.Capabilities.ElectionTick
	if tick <= 0 {
		return invalidf("", "%s has no election timeout to set (only a replicated store that declares one takes it, "+
			"such as zoo/etcdraft)", impl.OrCorrect().Name)
	}
	for i, d := range ds {
		if d <= tick || d%tick != 0 {
			return invalidf("", "value %d: %v: %s counts its election timeout in whole ticks of %v, more than one "+
				"(%v, %v, …)", i+1, d, impl.Name, tick, 2*tick, 3*tick)
		}
	}
	return nil
}

// gridSize is how many configurations the grid holds.
func (cfg Config) gridSize() int {
	return len(cfg.TTLs) * len(cfg.Renews) * len(cfg.Checkpoints) * max(len(cfg.ElectionTimeouts), 1)
}

func (c Constraints) validate() error {
	if v := c.MaxStoreWritesPerSecond; v != nil && !(*v >= 0) {
		return invalidf("constraints.max_store_writes_per_workload_s", "must not be negative, got %v", *v)
	}
	if v := c.MaxReexecutedFraction; v != nil && !(*v >= 0 && *v <= 1) {
		return invalidf("constraints.max_reexecuted_fraction", "must lie in [0, 1], got %v", *v)
	}
	if v := c.MaxFailoverP99; v != nil && *v < 0 {
		return invalidf("constraints.max_failover_p99_ns", "must not be negative, got %v", *v)
	}
	return nil
}
