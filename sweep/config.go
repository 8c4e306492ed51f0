package sweep

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// Bounds on what one summary holds, so that its size stays flat however
// many runs fail. Distributions are fixed-size histograms, and seed lists
// are bounded by MaxSeedRanges.
const (
	// MaxFailures bounds Summary.Failures; the rest are counted in
	// FailuresOmitted (and their seeds in ByProperty).
	MaxFailures = 200
	// MaxReasons bounds Summary.UnknownReasons; runs unknown for other
	// reasons are counted under OtherReason.
	MaxReasons = 20
)

// OtherReason is the UnknownReasons key of the reasons beyond MaxReasons.
const OtherReason = "other"

// Config says what a sweep runs: every seed of Seeds that Shard selects, for
// every scenario, against one implementation.
type Config struct {
	// Scenarios run in this order; their names must be distinct.
	Scenarios []scenarios.Scenario
	// Impl is the implementation under test; the zero value means
	// lease.Correct().
	Impl lease.Impl
	// Host, when set, runs the sweep instead of the event host, and
	// HostScenarios names its scenarios, in order (distinct); Scenarios
	// and Impl are then left empty. See Host.
	Host          Host
	HostScenarios []string
	// Seeds is the whole sweep's seed range; Shard selects this machine's
	// part of it (the zero Shard: all of it).
	Seeds Seeds
	Shard Shard
	// ScenarioSeeds, when set, holds one seed set per scenario, in the
	// order of Scenarios, that replaces Seeds for that scenario: a rerun
	// of the failing runs of a summary. Shard applies to each set.
	ScenarioSeeds []Seeds
	// Rerun names the summary whose failures ScenarioSeeds re-run; it is
	// copied into the Summary.
	Rerun string
	// Knobs are the goroutine host's knob settings the runs use, NAME=VALUE
	// in name order; copied into the Summary.
	Knobs []string
	// Parallel is how many runs go at once, each single-threaded in its own
	// world. Zero means runtime.NumCPU().
	Parallel int
	// VerifyDeterminism runs each seed twice and fails it under
	// "determinism" when the two trace hashes differ.
	VerifyDeterminism bool
	// Check configures the checkers. Visualize is ignored: a sweep writes
	// no per-run files.
	Check checker.Options
	// Progress, when set, is called after each run finishes, in the order
	// runs finish, from the goroutine that called Run.
	Progress func(Progress)
	// Logger receives a line when the sweep starts and ends; nil discards.
	// Runs themselves do not log.
	Logger *slog.Logger

	skipped []Skipped    // the scenarios Impl does not support, set by withDefaults
	adapted []Adaptation // how scenarios run differently for Impl, set by withDefaults
}

// Adaptation is how a scenario runs differently for the implementation
// than the catalogue describes it (scenarios.Adaptations).
type Adaptation struct {
	Scenario string `json:"scenario"`
	How      string `json:"how"`
}

// Skipped is a scenario a sweep did not run because the implementation
// does not declare what it needs (scenarios.Supports).
type Skipped struct {
	Scenario string `json:"scenario"`
	Reason   string `json:"reason"`
}

// skipUnsupported takes out of cfg the scenarios Impl does not support,
// keeping each with the reason. A sweep with nothing left to run is bad
// input: it says why for each scenario.
func (cfg *Config) skipUnsupported() error {
	var keep []scenarios.Scenario
	var keepSeeds []Seeds
	var reasons []string
	for i, sc := range cfg.Scenarios {
		var u *scenarios.UnsupportedError
		if err := scenarios.Supports(sc, cfg.Impl); errors.As(err, &u) {
			cfg.skipped = append(cfg.skipped, Skipped{Scenario: sc.Name, Reason: u.Reason()})
			reasons = append(reasons, u.Error())
			continue
		}
		keep = append(keep, sc)
		for _, how := range scenarios.Adaptations(sc, cfg.Impl) {
			cfg.adapted = append(cfg.adapted, Adaptation{Scenario: sc.Name, How: how})
		}
		if cfg.ScenarioSeeds != nil {
			keepSeeds = append(keepSeeds, cfg.ScenarioSeeds[i])
		}
	}
	if len(keep) == 0 {
		return invalidf("no scenario applies to %s: %s", cfg.Impl.Name, strings.Join(reasons, "; "))
	}
	cfg.Scenarios = keep
	if cfg.ScenarioSeeds != nil {
		cfg.ScenarioSeeds = keepSeeds
	}
	return nil
}

// Progress is a sweep's state after one more run finished.
type Progress struct {
	Done, Total int // runs finished, runs in the shard
	Failed      int // failing runs so far
	// Scenario and Seed are the run that just finished; Failure is its
	// failure, or nil if it passed.
	Scenario string
	Seed     uint64
	Failure  *Failure
}

// withDefaults checks cfg and fills in its defaults.
func (cfg Config) withDefaults() (Config, error) {
	if err := cfg.validScenarios(); err != nil {
		return cfg, err
	}
	if err := cfg.Seeds.Validate(); err != nil {
		return cfg, &InputError{Msg: err.Error()}
	}
	if err := cfg.Shard.Validate(); err != nil {
		return cfg, err
	}
	if runs := cfg.Shard.Len(cfg.Seeds); cfg.ScenarioSeeds == nil && runs > MaxRuns/len(cfg.names()) {
		return cfg, invalidf("%d scenarios x %d seeds exceed %d runs", len(cfg.names()), runs, MaxRuns)
	}
	if err := cfg.validScenarioSeeds(); err != nil {
		return cfg, err
	}
	switch {
	case cfg.Parallel < 0:
		return cfg, invalidf("parallel: must not be negative, got %d", cfg.Parallel)
	case cfg.Parallel == 0:
		cfg.Parallel = runtime.NumCPU()
	}
	if cfg.Host == nil {
		cfg.Impl = cfg.Impl.OrCorrect()
		if err := cfg.skipUnsupported(); err != nil {
			return cfg, err
		}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.Shard = cfg.Shard.norm()
	cfg.Check.Visualize = false
	return cfg, nil
}

// validScenarios checks that there are scenarios to run, each listed
// once: the event host's valid, or a Host's by name alone.
func (cfg Config) validScenarios() error {
	names := cfg.names()
	switch {
	case len(names) == 0:
		return invalidf("no scenarios to run")
	case cfg.Host != nil && len(cfg.Scenarios) > 0:
		return invalidf("a sweep on a Host names its scenarios in HostScenarios, not Scenarios")
	}
	seen := make(map[string]bool, len(names))
	for _, name := range names {
		if seen[name] {
			return invalidf("scenario %q is listed twice", name)
		}
		seen[name] = true
	}
	for _, sc := range cfg.Scenarios {
		if err := sc.Validate(); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
	}
	return nil
}

// implName names the implementation the sweep runs.
func (cfg Config) implName() string {
	if cfg.Host != nil {
		return cfg.Host.Impl()
	}
	return cfg.Impl.Name
}

// names returns the scenarios' names in order.
func (cfg Config) names() []string {
	if cfg.Host != nil {
		return cfg.HostScenarios
	}
	names := make([]string, len(cfg.Scenarios))
	for i, sc := range cfg.Scenarios {
		names[i] = sc.Name
	}
	return names
}

// validScenarioSeeds checks ScenarioSeeds, if set: one valid set per
// scenario, and no more than MaxRuns runs in all.
func (cfg Config) validScenarioSeeds() error {
	if cfg.ScenarioSeeds == nil {
		return nil
	}
	names := cfg.names()
	if len(cfg.ScenarioSeeds) != len(names) {
		return invalidf("%d seed sets for %d scenarios", len(cfg.ScenarioSeeds), len(names))
	}
	total := 0
	for i, set := range cfg.ScenarioSeeds {
		if err := set.Validate(); err != nil {
			return fmt.Errorf("scenario %s: %w", names[i], err)
		}
		if total += cfg.Shard.Len(set); total > MaxRuns {
			return invalidf("more than %d runs", MaxRuns)
		}
	}
	return nil
}

// seedsOf returns the seed set of scenario i.
func (cfg Config) seedsOf(i int) Seeds {
	if cfg.ScenarioSeeds != nil {
		return cfg.ScenarioSeeds[i]
	}
	return cfg.Seeds
}
