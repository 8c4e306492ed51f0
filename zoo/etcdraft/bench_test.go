package etcdraft

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// BenchmarkAcceleration reports simulated time per wall time (the
// "accel" metric) for the replicated store on its scenarios, next to
// leasesim's single grantor on swarm, in one run:
//
//	go -C zoo/etcdraft test -run '^$' -bench Acceleration -benchtime 20x .
func BenchmarkAcceleration(b *testing.B) {
	for _, tc := range []struct {
		name, scenario string
		impl           lease.Impl
	}{
		{"correct/swarm", "swarm", lease.Correct()},
		{"etcdraft-3/swarm", "swarm", Impl()},
		{"etcdraft-3/leader-stall", "leader-stall", Impl()},
		{"etcdraft-3/rolling-restart", "rolling-restart", Impl()},
		{"etcdraft-5/swarm", "swarm", ImplWith(Options{Members: 5})},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sc, err := scenarios.Lookup(tc.scenario)
			require.NoError(b, err)
			var sim time.Duration
			start := time.Now()
			for i := 0; i < b.N; i++ {
				out, err := scenarios.Execute(sc, uint64(i+1), scenarios.Options{Impl: tc.impl, Check: checker.Options{Skip: true}})
				require.NoError(b, err)
				sim += time.Duration(out.Sim.Now)
			}
			b.ReportMetric(float64(sim)/float64(time.Since(start)), "accel")
		})
	}
}
