package tune

import (
	"context"
	"fmt"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/workload"
)

// Progress is a tuning run's state after one more run finished.
type Progress struct {
	// Done and Total count runs over the whole grid (valid configurations
	// × seeds); Failed counts failing runs so far.
	Done, Total, Failed int
	// Config is the label of the configuration that ran, Seed its seed,
	// and Failure what failed ("" if it passed).
	Config  string
	Seed    uint64
	Failure string
}

// Run tunes: it reads the workload once, builds the grid, runs every valid
// configuration on the same seeds with package sweep (in parallel, results
// aggregated in seed order, so the Result is the same at any parallelism
// apart from its wall time), marks the Pareto frontier and recommends one
// configuration. progress, if not nil, is called after every run from the
// goroutine that called Run.
//
// Every property is checked on every run; a failing run is listed under
// its configuration with the command that reproduces it. When ctx is
// cancelled, the runs in flight finish and Run returns a Result marked
// Partial with a nil error. An error means bad input (it matches
// ErrInvalid, or workload.ErrInvalid for a bad workload file) or a
// workload that could not be read.
func Run(ctx context.Context, cfg Config, progress func(Progress)) (Result, error) {
	start := time.Now()
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	plan, err := inspect(cfg)
	if err != nil {
		return Result{}, err
	}
	res := cfg.newResult(plan)
	points := cfg.grid(res)
	t := tracker{total: cfg.Seeds.Count() * countValid(points), progress: progress}
	for i := range points {
		p := &points[i]
		if !p.res.Valid {
			continue
		}
		res.ValidConfigs++
		if ctx.Err() != nil {
			res.Partial = true
			continue
		}
		sum, err := cfg.runPoint(ctx, plan, p, &t)
		if err != nil {
			return Result{}, err
		}
		p.fill(sum, res, plan)
		res.Parallel = sum.Parallel
		res.Runs += sum.Runs
		res.ViolatingRuns += p.res.ViolatingRuns
		res.Partial = res.Partial || sum.Partial
	}
	for _, p := range points {
		res.Configs = append(res.Configs, p.res)
	}
	res.decide(cfg.Seeds.Count(), cfg.Objective, cfg.Constraints)
	res.WallSeconds = time.Since(start).Seconds()
	return res, nil
}

// newResult returns the result's frame, before anything ran.
func (cfg Config) newResult(plan workload.Plan) Result {
	return Result{
		SchemaVersion: ResultSchemaVersion,
		Workload:      cfg.Workload, Name: plan.Header.Name, WorkloadSeconds: plan.Duration.Seconds(),
		Seeds: cfg.Seeds.String(), SeedFirst: cfg.Seeds.First, SeedLast: cfg.Seeds.Last, Impl: cfg.Impl.Name,
		Rho: cfg.Rho, Margin: cfg.Margin, Objective: cfg.Objective, Constraints: cfg.Constraints,
		Configs: []ConfigResult{}, RecommendedIndex: -1, Parallel: cfg.Parallel,
	}
}

// decide marks the frontier and the recommendation, and explains it:
// runs is how many runs a configuration makes (one a seed, a story).
func (res *Result) decide(runs int, obj Objective, c Constraints) {
	seeds := runs
	res.ParetoConfigs = markPareto(res.Configs, seeds)
	if res.Partial {
		res.Explanation = fmt.Sprintf("No recommendation: the tuning run was interrupted after %d of %d runs, "+
			"so the configs did not all run on the same seeds.", res.Runs, res.ValidConfigs*seeds)
		return
	}
	res.RecommendedIndex, res.Explanation = recommend(res.Configs, seeds, obj, c)
	if res.RecommendedIndex >= 0 {
		label := res.Configs[res.RecommendedIndex].Label
		res.Recommended = &label
	}
}

func countValid(points []point) int {
	n := 0
	for _, p := range points {
		if p.res.Valid {
			n++
		}
	}
	return n
}

// One is one configuration of a tuning run, ready to run as a scenario:
// what `simrun run --workload` runs, so that a tuning run's failing seed
// opens as one run, with the same trace hash.
type One struct {
	// Scenario is the workload under the configuration's lease config.
	Scenario scenarios.Scenario
	// Impl is the implementation under test (lease.Correct() when unset).
	Impl lease.Impl
	// Config is the configuration's entry, with its Label.
	Config ConfigResult
	// Result frames the configuration as a tuning run of it would.
	Result Result
}

// OneConfig builds the single configuration of cfg, whose grid must hold
// exactly one TTL, renew interval and checkpoint policy; Seeds are not
// used. An error matches ErrInvalid for bad input (also a configuration
// that cannot be a valid lease configuration, with the reason), or
// workload.ErrInvalid for a bad workload file.
func OneConfig(cfg Config) (One, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return One{}, err
	}
	if len(cfg.TTLs) != 1 || len(cfg.Renews) != 1 || len(cfg.Checkpoints) != 1 || len(cfg.ElectionTimeouts) > 1 {
		return One{}, invalidf("ttls", "one configuration takes one TTL, one renew interval, one checkpoint policy "+
			"and at most one election timeout, got %d × %d × %d × %d", len(cfg.TTLs), len(cfg.Renews),
			len(cfg.Checkpoints), len(cfg.ElectionTimeouts))
	}
	var election time.Duration
	if len(cfg.ElectionTimeouts) == 1 {
		election = cfg.ElectionTimeouts[0]
	}
	plan, err := inspect(cfg)
	if err != nil {
		return One{}, err
	}
	res := cfg.newResult(plan)
	p := cfg.point(res, cfg.TTLs[0], cfg.Renews[0], cfg.Checkpoints[0], election)
	if !p.res.Valid {
		return One{}, invalidf("renews", "%s: %s", p.res.Label, p.res.InvalidReason)
	}
	sc, err := plan.Scenario(cfg.Open, p.lease)
	if err != nil {
		return One{}, fmt.Errorf("tune: %s: %w", p.res.Label, err)
	}
	return One{Scenario: sc, Impl: cfg.Impl, Config: p.res, Result: res}, nil
}

// inspect reads cfg's workload once and returns its plan for the lease
// store under test (workload.Plan.ForStore): a pause of the store's
// leader pauses the grantor of a store of one.
func inspect(cfg Config) (workload.Plan, error) {
	plan, err := workload.Inspect(cfg.Open)
	if err == nil {
		plan, err = plan.ForStore(cfg.Impl.Members)
	}
	if err != nil {
		return workload.Plan{}, fmt.Errorf("tune: %w", err)
	}
	return plan, nil
}

// runPoint runs one configuration on every seed.
func (cfg Config) runPoint(ctx context.Context, plan workload.Plan, p *point, t *tracker) (sweep.Summary, error) {
	sc, err := plan.Scenario(cfg.Open, p.lease)
	if err != nil {
		return sweep.Summary{}, fmt.Errorf("tune: %s: %w", p.res.Label, err)
	}
	cfg.Logger.Info("tune: config", "config", p.res.Label, "seeds", cfg.Seeds.String())
	sum, err := sweep.Run(ctx, sweep.Config{
		Scenarios: []scenarios.Scenario{sc}, Impl: cfg.Impl, Seeds: cfg.Seeds, Parallel: cfg.Parallel, Check: cfg.Check,
		Progress: func(s sweep.Progress) { t.update(p.res.Label, s) },
	})
	if err != nil {
		return sum, fmt.Errorf("tune: %s: %w", p.res.Label, err)
	}
	t.finish(sum)
	return sum, nil
}

// fill records what a configuration's runs measured.
func (p *point) fill(sum sweep.Summary, res Result, plan workload.Plan) {
	r := &p.res
	r.Runs = sum.Runs
	r.Metrics = metricsOf(sum.Metrics, plan.Duration)
	for prop, n := range sum.Unknown { // copied into a map, which JSON writes sorted
		r.Unknown[prop] = n
	}
	r.ViolatingRuns = len(sum.Failures) + sum.FailuresOmitted
	for _, f := range sum.Failures[:min(len(sum.Failures), MaxViolationsListed)] {
		f.Replay = res.RunReplay(*r, f.Seed)
		r.Violations = append(r.Violations, f)
	}
}

// tracker turns each configuration's sweep progress into the grid's.
type tracker struct {
	total, doneBefore, failedBefore int
	progress                        func(Progress)
}

func (t *tracker) update(label string, s sweep.Progress) {
	if t.progress == nil {
		return
	}
	p := Progress{Done: t.doneBefore + s.Done, Total: t.total, Failed: t.failedBefore + s.Failed, Config: label, Seed: s.Seed}
	if s.Failure != nil {
		p.Failure = s.Failure.Detail
	}
	t.progress(p)
}

// finish moves past a configuration whose sweep ended.
func (t *tracker) finish(sum sweep.Summary) {
	t.doneBefore += sum.Runs
	t.failedBefore += len(sum.Failures) + sum.FailuresOmitted
}
