package tune

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/sweep"
)

// A goroutine-host implementation (a zoo module's, run in worker
// processes) is tuned over the knobs it declares (gohost.Knob) instead of
// a lease.Config: KnobConfig names one of its scenarios and an axis of
// values per knob, and RunKnobs runs every combination on the same seeds
// through a sweep.Host the caller builds per configuration (simrun's
// worker pool), judges every run, and decides the frontier and the
// recommendation exactly as Run does, over the same Metrics, Objectives
// and Constraints.

// KnobAxis is one knob of the grid and the values it takes, in order.
type KnobAxis struct {
	Name   string
	Values []time.Duration
}

// KnobHost builds the sweep host of one configuration: the runs of the
// implementation with the knobs set to values. A configuration the
// implementation refuses (raft's leader lease longer than its heartbeat
// timeout) returns its reason, and does not run; an error stops the
// tuning run.
type KnobHost func(values gohost.KnobValues) (host sweep.Host, invalid string, err error)

// KnobConfig says what to tune on a goroutine-host implementation.
type KnobConfig struct {
	// Impl names the implementation; Scenarios are the stories every
	// configuration runs, each on every seed, measured together (a
	// detector's false suspicions come from one story, its detection
	// times from another).
	Impl      string
	Scenarios []string
	// Target are the command-line arguments that name the implementation
	// in printed lines (--impl NAME, and --zoo-dir DIR when given).
	Target []string
	// Axes are the knobs of the grid, the first outermost; each
	// configuration sets every one of them.
	Axes []KnobAxis
	// Host runs a configuration.
	Host KnobHost
	// Seeds, Parallel, Objective and Constraints are as in Config, but an
	// empty Objective is chosen after the runs: ObjectiveFalseSuspicions
	// for a failure detector (a run measured detections or false
	// suspicions), ObjectiveFailoverP99 otherwise.
	Seeds       sweep.Seeds
	Parallel    int
	Objective   Objective
	Constraints Constraints
}

// RunKnobs tunes a goroutine-host implementation: every combination of
// the axes' values, each on every seed, as Run does a workload's grid.
// The Result's Configs carry their Knobs and Label ("renew-interval=10s
// grace-period=50s"); each replays with a `simrun sweep` line, each
// failing run with a `simrun run` line, both with the knobs. An error is
// bad input (it matches ErrInvalid) or the harness's.
func RunKnobs(ctx context.Context, cfg KnobConfig, progress func(Progress)) (Result, error) {
	start := time.Now()
	if err := cfg.check(); err != nil {
		return Result{}, err
	}
	res := Result{SchemaVersion: ResultSchemaVersion, Scenario: strings.Join(cfg.Scenarios, ","), Target: cfg.Target,
		Seeds: cfg.Seeds.String(), SeedFirst: cfg.Seeds.First, SeedLast: cfg.Seeds.Last, Impl: cfg.Impl,
		Objective: cfg.Objective, Constraints: cfg.Constraints, Configs: []ConfigResult{}, RecommendedIndex: -1,
		Parallel: cfg.Parallel}
	type knobPoint struct {
		c    ConfigResult
		host sweep.Host
	}
	var points []knobPoint
	for _, values := range cfg.combinations() {
		c := ConfigResult{Label: knobLabel(cfg.Axes, values), Knobs: values, Violations: []Violation{}, Unknown: map[string]int{}}
		host, invalid, err := cfg.Host(values)
		if err != nil {
			return Result{}, fmt.Errorf("tune: %s: %w", c.Label, err)
		}
		c.Valid, c.InvalidReason = invalid == "", invalid
		if c.Valid {
			c.Replay = res.knobLine("sweep", c, res.Scenario, "--seeds", res.Seeds)
		}
		points = append(points, knobPoint{c: c, host: host})
	}
	valid := 0
	for _, p := range points {
		if p.c.Valid {
			valid++
		}
	}
	t := tracker{total: cfg.Seeds.Count() * len(cfg.Scenarios) * valid, progress: progress}
	for i := range points {
		p := &points[i]
		if !p.c.Valid {
			continue
		}
		res.ValidConfigs++
		if ctx.Err() != nil {
			res.Partial = true
			continue
		}
		sum, err := sweep.Run(ctx, sweep.Config{Host: p.host, HostScenarios: cfg.Scenarios, Seeds: cfg.Seeds,
			Parallel: cfg.Parallel, Progress: func(s sweep.Progress) { t.update(p.c.Label, s) }})
		if err != nil {
			return Result{}, fmt.Errorf("tune: %s: %w", p.c.Label, err)
		}
		t.finish(sum)
		res.fillKnobs(&p.c, sum)
		res.Parallel = sum.Parallel
		res.Runs += sum.Runs
		res.ViolatingRuns += p.c.ViolatingRuns
		res.Partial = res.Partial || sum.Partial
	}
	for _, p := range points {
		res.Configs = append(res.Configs, p.c)
	}
	if cfg.Objective == "" {
		cfg.Objective = defaultObjective(res.Configs)
		res.Objective = cfg.Objective
	}
	res.decide(cfg.Seeds.Count()*len(cfg.Scenarios), cfg.Objective, cfg.Constraints)
	res.WallSeconds = time.Since(start).Seconds()
	return res, nil
}

// defaultObjective is the objective of a tuning run that names none: a
// failure detector's false suspicions when some run measured a detector
// (its ties broken by the other objectives, the longest detection last),
// the p99 failover otherwise.
func defaultObjective(configs []ConfigResult) Objective {
	for _, c := range configs {
		if m := c.Metrics; m.Detections > 0 || m.FalseSuspicions > 0 {
			return ObjectiveFalseSuspicions
		}
	}
	return ObjectiveFailoverP99
}

// check says what makes cfg unusable.
func (cfg KnobConfig) check() error {
	switch {
	case cfg.Impl == "" || len(cfg.Scenarios) == 0:
		return invalidf("scenario", "a goroutine-host tuning run needs an implementation and a scenario")
	case len(cfg.Axes) == 0:
		return invalidf("knobs", "no knob to tune: give --knob NAME=V1,V2 (simrun list --impl %s lists the knobs)", cfg.Impl)
	case cfg.Host == nil:
		return invalidf("host", "no host to run the configurations")
	case cfg.Seeds.Count() == 0:
		return invalidf("seeds", "no seeds")
	}
	n := 1
	for _, a := range cfg.Axes {
		if len(a.Values) == 0 {
			return invalidf("knobs", "knob %s has no values", a.Name)
		}
		n *= len(a.Values)
		if n > MaxConfigs {
			return invalidf("knobs", "the grid has more than %d configurations", MaxConfigs)
		}
	}
	return nil
}

// combinations returns every combination of the axes' values, the first
// axis outermost.
func (cfg KnobConfig) combinations() []gohost.KnobValues {
	out := []gohost.KnobValues{{}}
	for _, a := range cfg.Axes {
		var next []gohost.KnobValues
		for _, prefix := range out {
			for _, v := range a.Values {
				c := gohost.KnobValues{a.Name: v}
				for name, pv := range prefix { // a copy; order does not matter
					c[name] = pv
				}
				next = append(next, c)
			}
		}
		out = next
	}
	return out
}

// knobLabel names a configuration by its knobs in axis order:
// "renew-interval=10s grace-period=50s".
func knobLabel(axes []KnobAxis, values gohost.KnobValues) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.Name + "=" + values[a.Name].String()
	}
	return strings.Join(parts, " ")
}

// fillKnobs records what a configuration's sweep measured, with the run
// line of each failing run.
func (res Result) fillKnobs(c *ConfigResult, sum sweep.Summary) {
	c.Runs = sum.Runs
	c.Metrics = metricsOf(sum.Metrics, 0)
	if sum.Margin.Count() > 0 {
		m := sum.Margin.Min()
		c.Metrics.P1MarginMin = &m
	}
	for prop, n := range sum.Unknown {
		c.Unknown[prop] = n
	}
	c.Violated = map[string]int{}
	for prop, byScenario := range sum.ByProperty { // into a map, which JSON writes sorted
		for _, seeds := range byScenario {
			c.Violated[prop] += int(seeds.Count())
		}
	}
	c.ViolatingRuns = len(sum.Failures) + sum.FailuresOmitted
	for _, f := range sum.Failures[:min(len(sum.Failures), MaxViolationsListed)] {
		f.Replay = res.knobLine("run", *c, f.Scenario, "--seed", strconv.FormatUint(f.Seed, 10))
		c.Violations = append(c.Violations, f)
	}
}

// knobLine is the simrun line of command (run or sweep) for configuration
// c on the given scenarios and seeds.
func (res Result) knobLine(command string, c ConfigResult, scenarios, seedFlag, seeds string) string {
	args := append([]string{command}, res.Target...)
	args = append(args, "--scenario", scenarios, seedFlag, seeds)
	return repro.Simrun(append(args, gohost.KnobArgs(c.Knobs)...)...)
}
