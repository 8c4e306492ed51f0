package scenarios_test

import (
	"runtime"
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/internal/batchgc"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// gcPolicies are the collector settings a benchmark may measure under:
// simrun's (internal/batchgc), and Go's default (what a Go test of a
// scenario gets).
var gcPolicies = []struct {
	name  string
	apply func() (restore func())
}{
	{"batch-gc", batchgc.Apply},
	{"default-gc", func() func() { return func() {} }},
}

// checkModes are a scenario run with every checker and without them.
var checkModes = []struct {
	name string
	opts scenarios.Options
}{
	{"checked", scenarios.Options{}},
	{"unchecked", scenarios.Options{Check: checker.Options{Skip: true}}},
}

// BenchmarkScenario runs each built-in scenario, seed after seed, and
// reports its acceleration (simulated seconds per wall second), with the
// checkers and without them, so the cost of checking shows as a ratio. It
// also reports the cost per kernel event (ns/event, allocs/event,
// B/event), which internal/benchratio sets against the kernel's own event
// measured in the same run. Each outcome is dropped once read, as a sweep
// drops it.
func BenchmarkScenario(b *testing.B) {
	for _, sc := range scenarios.CatalogFor(lease.Correct()) {
		for _, mode := range checkModes {
			b.Run(sc.Name+"/"+mode.name, func(b *testing.B) {
				benchmarkPerEvent(b, sc, mode.opts)
			})
		}
	}
}

// BenchmarkScenarioBatchGC runs swarm, checked and not, as
// BenchmarkScenario does but under simrun's garbage collector policy
// (internal/batchgc): what a run costs from the CLI, where BenchmarkScenario
// measures what it costs in a Go test at the default GOGC.
func BenchmarkScenarioBatchGC(b *testing.B) {
	defer batchgc.Apply()()
	sc := scenarios.Swarm()
	for _, mode := range checkModes {
		b.Run(sc.Name+"/"+mode.name, func(b *testing.B) {
			benchmarkPerEvent(b, sc, mode.opts)
		})
	}
}

// benchmarkPerEvent runs sc seed after seed and reports its acceleration
// (simulated seconds per wall second), its cost per kernel event and per
// operation its history recorded.
func benchmarkPerEvent(b *testing.B, sc scenarios.Scenario, opts scenarios.Options) {
	benchmarkEvents(b, sc, opts, 0)
}

// benchmarkEvents is benchmarkPerEvent with at least minEvents kernel
// events per iteration: each runs seeds until it has them, so that runs of
// different sizes are measured over as much work, each as warm as the
// others (the first run of a benchmark pays for cold caches and a heap
// that has not grown yet, which two small runs cannot amortise).
func benchmarkEvents(b *testing.B, sc scenarios.Scenario, opts scenarios.Options, minEvents uint64) {
	b.ReportAllocs()
	var events, seeds, ops uint64
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		for start := events; ; {
			seeds++
			out, err := scenarios.Execute(sc, seeds, opts)
			if err != nil {
				b.Fatal(err)
			}
			events += out.Sim.Events
			ops += uint64(out.History.NumOps())
			if events-start >= minEvents {
				break
			}
		}
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	wall := b.Elapsed().Seconds()
	b.ReportMetric(float64(seeds)*sc.Duration.Seconds()/wall, "acceleration")
	b.ReportMetric(float64(events)/wall, "events/s")
	b.ReportMetric(float64(seeds)/wall, "seeds/s")
	if events > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(events), "allocs/event")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(events), "B/event")
	}
	if ops > 0 { // a run's cost also follows the operations its history records, which some runs have more of per event
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops), "ns/history-op")
	}
}
