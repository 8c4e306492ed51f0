package tune

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
)

// A configuration's metrics are checker.Metrics, every key with its run
// and sweep meaning, plus store writes per second of workload under a key
// of its own: two runs of a 100 s workload that simulated 130 s each
// (drains included) with 520 writes make 2.6 writes per workload second
// and 2 per simulated second.
func TestMetricsOf(t *testing.T) {
	sum := checker.Metrics{Runs: 2, SimTime: 260 * time.Second, StoreWrites: 520, StoreWritesPerSecond: 2,
		Failovers: 3, FailoverP99: 4 * time.Second, FailoverSamples: []time.Duration{time.Second}}
	tests := []struct {
		name      string
		sum       checker.Metrics
		workload  time.Duration
		perWkldS  float64
		perSimS   float64
		simTimeNs int64
	}{
		{"drains add writes but not time", sum, 100 * time.Second, 2.6, 2, int64(260 * time.Second)},
		{"no runs: no rate", checker.Metrics{}, 100 * time.Second, 0, 0, 0},
		{"no workload time: no rate", sum, 0, 0, 2, int64(260 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := metricsOf(tt.sum, tt.workload)
			assert.InDelta(t, tt.perWkldS, m.StoreWritesPerWorkloadSecond, 1e-12)
			assert.Equal(t, tt.sum.Failovers, m.Failovers, "checker's figures pass through")
			assert.Nil(t, m.FailoverSamples, "a result holds no samples")

			raw, err := json.Marshal(m)
			require.NoError(t, err)
			var fields map[string]any
			require.NoError(t, json.Unmarshal(raw, &fields))
			assert.InDelta(t, tt.perWkldS, fields["store_writes_per_workload_s"], 1e-12)
			assert.InDelta(t, tt.perSimS, fields["store_writes_per_s"], 1e-12, "store_writes_per_s is per simulated second, as in a run or sweep")
			assert.InDelta(t, float64(tt.simTimeNs), fields["sim_time_ns"], 0)
			assert.NotContains(t, fields, "sim_seconds", "one key for the simulated time")
			assert.NotContains(t, fields, "metrics", "checker.Metrics is inline, not nested")
		})
	}
}
