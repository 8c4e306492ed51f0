package sweep_test

import (
	"context"
	"testing"

	"github.com/leasesim/leasesim/internal/batchgc"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
)

// BenchmarkSweep sweeps the catalogue (every scenario the correct
// implementation supports) over seeds 1-20 with two workers, as `simrun
// sweep --scenario all --parallel 2` does, and reports runs per wall second
// (runs/s) and the wall seconds the 12,000-run sweep (seeds 1-1000)
// would take at that rate (s/1000-seeds). One op is one sweep. It runs
// under simrun's GC policy (internal/batchgc) for its two runs at once,
// which makes a sweep about twice as fast as the default GOGC does.
func BenchmarkSweep(b *testing.B) {
	defer batchgc.Apply()()
	cfg := sweep.Config{Scenarios: scenarios.CatalogFor(lease.Correct()), Seeds: sweep.Seeds{First: 1, Last: 20},
		Parallel: 2}
	batchgc.RunsAtOnce(cfg.Parallel)
	var runs int
	for b.Loop() {
		s, err := sweep.Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		runs += s.Runs
	}
	if runs == 0 {
		b.Fatal("the sweep ran nothing")
	}
	perSecond := float64(runs) / b.Elapsed().Seconds()
	b.ReportMetric(perSecond, "runs/s")
	b.ReportMetric(float64(runs/b.N)*1000/20/perSecond, "s/1000-seeds")
}
