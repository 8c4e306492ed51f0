package sweep

import (
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/internal/dist"
)

// builder folds records, in (scenario, seed) order, into a Summary.
type builder struct {
	sum      Summary
	sim      time.Duration // exact sum, converted to seconds once
	cpu      time.Duration
	accelSum float64
	accelN   int
	progress func(Progress)
	total    int
	failed   int
	// host says a Host ran the runs: the behaviours they cannot reach come
	// from the first run's history (record.spec, record.tasks).
	host bool
}

func newBuilder(cfg Config, total int) *builder {
	b := &builder{
		sum: Summary{
			Schema: SummarySchema, Scenarios: cfg.names(), Impl: cfg.implName(), Knobs: cfg.Knobs, Skipped: cfg.skipped, Adapted: cfg.adapted,
			Seeds:     cfg.Seeds.String(),
			SeedFirst: cfg.Seeds.First, SeedLast: cfg.Seeds.Last, Shard: cfg.Shard.String(), Rerun: cfg.Rerun,
			RunsExpected: total, Parallel: cfg.Parallel, VerifyDeterminism: cfg.VerifyDeterminism,
		}.withEmpty(),
		progress: cfg.Progress,
		total:    total,
		host:     cfg.Host != nil,
	}
	if !b.host {
		b.sum.CoverageNotApplicable = notApplicable(cfg.Impl.Spec, cfg.Impl.Capabilities.Checkpoints && cfg.Impl.Capabilities.SideEffects)
	}
	return b
}

// withEmpty returns s with empty, not nil, lists and maps, so that its JSON
// has [] and {} rather than null.
func (s Summary) withEmpty() Summary {
	if s.Scenarios == nil {
		s.Scenarios = []string{}
	}
	if s.Failures == nil {
		s.Failures = []Failure{}
	}
	if s.ByProperty == nil {
		s.ByProperty = map[string]map[string]SeedSet{}
	}
	if s.Unknown == nil {
		s.Unknown = map[string]int{}
	}
	if s.UnknownReasons == nil {
		s.UnknownReasons = map[string]int{}
	}
	if s.PerScenario == nil {
		s.PerScenario = map[string]ScenarioCounts{}
	}
	if s.Coverage == nil {
		s.Coverage = newCoverage()
	}
	return s
}

// notify reports a run that just finished, before it is aggregated.
func (b *builder) notify(rec *record, done int) {
	if rec.failure != nil {
		b.failed++
	}
	if b.progress != nil {
		b.progress(Progress{Done: done, Total: b.total, Failed: b.failed,
			Scenario: rec.scenario, Seed: rec.seed, Failure: rec.failure})
	}
}

// add folds one run into the summary. Runs must come in (scenario, seed)
// order.
func (b *builder) add(rec *record) {
	s := &b.sum
	if b.host && s.Runs == 0 {
		s.CoverageNotApplicable = notApplicable(rec.spec, rec.tasks)
	}
	s.Runs++
	s.Events += rec.events
	b.sim += rec.sim
	b.cpu += rec.wall
	if rec.accel > 0 {
		b.accelSum += rec.accel
		b.accelN++
	}
	for _, u := range rec.unknown {
		s.Unknown[u.property]++
	}
	if len(rec.unknown) > 0 {
		s.UnknownRuns++
		s.addReason(rec.unknown[0].reason, 1)
	}
	if rec.assumption {
		s.AssumptionExceeded++
	}
	if rec.margin != nil {
		s.Margin.Record(*rec.margin)
	}
	for _, d := range rec.metrics.FailoverSamples {
		s.Failover.Record(d)
	}
	for _, d := range rec.metrics.TaskLatencySamples {
		s.TaskLatency.Record(d)
	}
	for _, d := range rec.metrics.DetectionSamples {
		s.Detection.Record(d)
	}
	s.Metrics.Merge(withoutSamples(rec.metrics))
	s.Coverage.addRun(rec.coverage)
	counts := s.PerScenario[rec.scenario]
	counts.Runs++
	if f := rec.failure; f != nil {
		counts.Failed++
		s.addFailure(*f)
		for _, p := range f.Properties {
			s.addSeeds(p, f.Scenario, SeedSetOf(f.Seed))
		}
	}
	s.PerScenario[rec.scenario] = counts
}

// addFailure lists f, or counts it once the list is full.
func (s *Summary) addFailure(f Failure) {
	if len(s.Failures) < MaxFailures {
		s.Failures = append(s.Failures, f)
	} else {
		s.FailuresOmitted++
	}
}

// addSeeds adds seeds to the failing seeds of property in scenario.
func (s *Summary) addSeeds(property, scenario string, seeds SeedSet) {
	if s.ByProperty[property] == nil {
		s.ByProperty[property] = map[string]SeedSet{}
	}
	set := s.ByProperty[property][scenario]
	set.Merge(seeds)
	s.ByProperty[property][scenario] = set
}

// addReason counts n unknown runs under reason, or under "other" once
// MaxReasons reasons are listed.
func (s *Summary) addReason(reason string, n int) {
	if _, ok := s.UnknownReasons[reason]; !ok && len(s.UnknownReasons) >= MaxReasons {
		reason = OtherReason
	}
	s.UnknownReasons[reason] += n
}

// finish fills in the totals and rates of a sweep that took wall.
func (b *builder) finish(wall time.Duration, partial bool) Summary {
	s := b.sum
	s.Partial = partial
	s.SimSeconds = b.sim.Seconds()
	s.CPUSeconds = b.cpu.Seconds()
	s.WallSeconds = wall.Seconds()
	if b.accelN > 0 {
		s.MeanAcceleration = b.accelSum / float64(b.accelN)
	}
	s.rates()
	s.derive()
	return s
}

// rates derives the per-second rates from the totals.
func (s *Summary) rates() {
	s.EventsPerSecond, s.RunsPerSecond = 0, 0
	if s.WallSeconds > 0 {
		s.EventsPerSecond = float64(s.Events) / s.WallSeconds
		s.RunsPerSecond = float64(s.Runs) / s.WallSeconds
	}
}

// withoutSamples returns m without its samples: a summary aggregates the
// counters with Metrics.Merge, and the samples in its histograms.
func withoutSamples(m checker.Metrics) checker.Metrics {
	m.FailoverSamples, m.TaskLatencySamples, m.DetectionSamples = nil, nil, nil
	return m
}

// derive sets the metrics that come from the histograms: the failover
// count, percentiles and mean, and the task latency percentiles.
func (s *Summary) derive() {
	m := &s.Metrics
	m.Failovers = int(s.Failover.Count())
	m.FailoverP50, m.FailoverP99 = s.Failover.Quantile(0.50), s.Failover.Quantile(0.99)
	m.FailoverMax, m.FailoverMean = s.Failover.Max(), s.Failover.Mean()
	m.TaskLatencyP50, m.TaskLatencyP99 = s.TaskLatency.Quantile(0.50), s.TaskLatency.Quantile(0.99)
	m.Detections = int(s.Detection.Count())
	m.DetectionP50, m.DetectionMax = s.Detection.Quantile(0.50), s.Detection.Max()
}

// histograms lists the summary's histograms, for merging.
func (s *Summary) histograms() []*dist.Histogram {
	return []*dist.Histogram{&s.Failover, &s.TaskLatency, &s.Margin, &s.Detection}
}
