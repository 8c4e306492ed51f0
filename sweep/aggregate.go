package sweep

import (
	"math"
	"slices"
	"time"

	"github.com/leasesim/leasesim/checker"
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
}

func newBuilder(cfg Config, total int) *builder {
	return &builder{
		sum: Summary{
			Scenarios: cfg.names(), Impl: cfg.Impl.Name,
			SeedFirst: cfg.Seeds.First, SeedLast: cfg.Seeds.Last, Shard: cfg.Shard.String(),
			RunsExpected: total, Parallel: cfg.Parallel, VerifyDeterminism: cfg.VerifyDeterminism,
		}.withEmpty(),
		progress: cfg.Progress,
		total:    total,
	}
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
		s.ByProperty = map[string]map[string][]uint64{}
	}
	if s.Unknown == nil {
		s.Unknown = map[string]int{}
	}
	if s.PerScenario == nil {
		s.PerScenario = map[string]ScenarioCounts{}
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
	s.Runs++
	s.Events += rec.events
	b.sim += rec.sim
	b.cpu += rec.wall
	if rec.accel > 0 {
		b.accelSum += rec.accel
		b.accelN++
	}
	for _, p := range rec.unknown {
		s.Unknown[p]++
	}
	if rec.assumption {
		s.AssumptionExceeded++
	}
	if rec.margin != nil && len(s.MarginSeconds) < MaxSamples {
		s.MarginSeconds = append(s.MarginSeconds, rec.margin.Seconds())
	}
	s.Metrics = s.Metrics.Add(withoutSamples(rec.metrics))
	s.FailoverSeconds = appendSamples(s.FailoverSeconds, rec.metrics.FailoverSamples)
	s.TaskLatencySeconds = appendSamples(s.TaskLatencySeconds, rec.metrics.TaskLatencySamples)
	counts := s.PerScenario[rec.scenario]
	counts.Runs++
	if f := rec.failure; f != nil {
		counts.Failed++
		if len(s.Failures) < MaxFailures {
			s.Failures = append(s.Failures, *f)
		} else {
			s.FailuresOmitted++
		}
		for _, p := range f.Properties {
			addSeed(s.ByProperty, p, f.Scenario, f.Seed)
		}
	}
	s.PerScenario[rec.scenario] = counts
}

func addSeed(by map[string]map[string][]uint64, property, scenario string, seed uint64) {
	if by[property] == nil {
		by[property] = map[string][]uint64{}
	}
	by[property][scenario] = append(by[property][scenario], seed)
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
	slices.Sort(s.MarginSeconds)
	s.Metrics = s.finalMetrics(s.Metrics)
	return s
}

// rates derives the per-second rates from the totals.
func (s *Summary) rates() {
	s.EventsPerSecond, s.SeedsPerSecond = 0, 0
	if s.WallSeconds > 0 {
		s.EventsPerSecond = float64(s.Events) / s.WallSeconds
		s.SeedsPerSecond = float64(s.Runs) / s.WallSeconds
	}
}

// withoutSamples returns m without its samples. A summary aggregates the
// counters of its runs' metrics with Metrics.Add, which is cheap without
// samples, and keeps the samples in its own bounded lists; finalMetrics
// puts them back once.
func withoutSamples(m checker.Metrics) checker.Metrics {
	m.FailoverSamples, m.TaskLatencySamples = nil, nil
	return m
}

// appendSamples appends samples to h as seconds, up to MaxSamples in all.
func appendSamples(h []float64, samples []time.Duration) []float64 {
	for _, d := range samples[:min(len(samples), MaxSamples-len(h))] {
		h = append(h, d.Seconds())
	}
	return h
}

// durations converts seconds back to durations, exactly for anything
// shorter than about a hundred days.
func durations(h []float64) []time.Duration {
	out := make([]time.Duration, len(h))
	for i, v := range h {
		out[i] = time.Duration(math.Round(v * 1e9))
	}
	return out
}

// finalMetrics returns counters (aggregated without samples) with the
// percentiles and means recomputed over the summary's samples, which it
// sorts.
func (s *Summary) finalMetrics(counters checker.Metrics) checker.Metrics {
	slices.Sort(s.FailoverSeconds)
	slices.Sort(s.TaskLatencySeconds)
	samples := checker.Metrics{FailoverSamples: durations(s.FailoverSeconds), TaskLatencySamples: durations(s.TaskLatencySeconds)}
	return checker.Aggregate(counters, samples)
}
