package tune

import (
	"fmt"
	"testing"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
	"github.com/leasesim/leasesim/workload"
)

// BenchmarkConfigRun measures one run of the steady-batch example, as a
// tuning run makes it, at the shortest and a middling TTL of the example
// grid, with every checker and with none, so that the cost of the
// simulation and of the checkers can be told apart:
//
//	go test ./tune -run '^$' -bench ConfigRun -cpuprofile cpu.out
func BenchmarkConfigRun(b *testing.B) {
	open := workload.File(examplePath("steady-batch"))
	plan, err := workload.Inspect(open)
	if err != nil {
		b.Fatal(err)
	}
	for _, ttl := range []time.Duration{2 * time.Second, 10 * time.Second} {
		cfg := lease.Config{TTL: ttl, RenewInterval: ttl / 3, Rho: DefaultRho, Margin: DefaultMargin, CheckpointEveryUnits: 5}
		sc, err := plan.Scenario(open, cfg)
		if err != nil {
			b.Fatal(err)
		}
		for _, skip := range []bool{false, true} {
			name := fmt.Sprintf("ttl=%v/checkers=%v", ttl, !skip)
			b.Run(name, func(b *testing.B) {
				var events uint64
				for i := range b.N {
					out, err := scenarios.Execute(sc, uint64(i+1), scenarios.Options{Trace: sim.TraceConfig{Keep: -1},
						Check: checker.Options{Skip: skip}})
					if err != nil {
						b.Fatal(err)
					}
					events += out.Sim.Events
				}
				b.ReportMetric(float64(events)/float64(b.N), "events/run")
			})
		}
	}
}
