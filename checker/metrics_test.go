package checker

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/dist"
	"github.com/leasesim/leasesim/lease"
)

func TestMeasureCounts(t *testing.T) {
	b := newHistory().
		acquire("h1", "lock", 1, at(0)).
		acquire("h1", "lock", 1, at(100)). // re-confirmation: not an acquisition
		refused("h2", "lock", at(200), lease.CodeHeld).
		renew("h1", "lock", 1, at(1000), lease.CodeOK).
		renew("h1", "lock", 1, at(2000), lease.CodeOK).lost().
		renew("h1", "lock", 1, at(3000), lease.CodeLeaseExpired).
		acquire("h2", "lock", 2, at(9000)).
		write("h1", "lock", 1, at(9100), lease.CodeFenced).
		checkpoint("h1", "lock", 1, at(9200), "x", lease.CodeFenced).
		beliefEnded("h1", "lock", 1, at(0), at(4000), history.EndDeadline).
		beliefEnded("h2", "lock", 2, at(9000), at(10_000), history.EndLost).
		beliefEnded("h3", "x", 1, at(0), at(10), history.EndCrash).
		beliefEnded("h4", "x", 2, at(20), at(30), history.EndRelease).
		beliefEnded("h5", "x", 3, at(40), at(50), history.EndFenced).
		beliefEnded("h6", "x", 4, at(60), at(120_000), history.EndRun)
	b.h.GrantorSyncs = 240
	m := Measure(b.build())
	assert.Equal(t, 1, m.Runs)
	assert.Equal(t, 2*time.Minute, m.SimTime)
	assert.Equal(t, 2, m.Acquisitions)
	assert.Equal(t, 1, m.Renewals)
	assert.Equal(t, 2, m.RenewalFailures, "one refused, one whose reply never arrived")
	assert.Equal(t, 2, m.FalseExpirations, "deadline and lost")
	assert.Equal(t, 2, m.Fenced)
	assert.Equal(t, uint64(240), m.StoreWrites)
	assert.InDelta(t, 2.0, m.StoreWritesPerSecond, 1e-12)
	assert.Empty(t, m.NotApplicable, "leasesim's protocol measures every metric")
}

func TestMeasureWork(t *testing.T) {
	b := handoff("", 4).effect("t1", "t1/4", at(700)).effect("t1", "t1/4", at(9200)).
		task("t2", 3, unit, at(1000), history.Never).
		task("t3", 3, unit, at(200_000), history.Never) // never arrived
	m := Measure(b.build())
	assert.Equal(t, 10, m.UnitsExecuted)
	assert.Equal(t, 2, m.UnitsReexecuted)
	assert.InDelta(t, 0.2, m.ReexecutedFraction, 1e-12)
	assert.Equal(t, 1, m.Handoffs)
	assert.Equal(t, 1, m.DuplicateEffects)
	assert.Equal(t, 1, m.TasksCompleted)
	assert.Equal(t, 1, m.TasksUnfinished)
	assert.Equal(t, 20*time.Second, m.TaskLatencyP50)
	assert.Equal(t, 20*time.Second, m.TaskLatencyP99)
}

func TestMeasureFailover(t *testing.T) {
	// h1 believes the lock from 0 to 5s; a fault cuts it off at 2s, and h2
	// is granted the lock at 7.5s: a failover of 5.5s. A fault that cuts
	// off someone else, or none, measures nothing.
	base := func() *hb {
		return newHistory().
			acquire("h1", "lock", 1, at(0)).belief("h1", "lock", 1, at(0), at(5000)).
			// A grant to h1 for a request it sent before the cut (a late
			// one) does not end the failover.
			acquire("h1", "lock", 3, at(7000)).calledAt(at(1500)).
			acquire("h2", "lock", 4, at(7500))
	}
	// h1 restarts (or reconnects) and takes its own lease back at 6s, for
	// a request sent after the cut: the lock is held again after 4s.
	takenBack := func() *hb {
		return base().acquire("h1", "lock", 1, at(6000)).calledAt(at(5900))
	}
	tests := []struct {
		name string
		h    *hb
		want []time.Duration
	}{
		{"no fault", base(), nil},
		{"holder crash", base().fault(history.FaultCrash, "h1", at(2000), at(30_000)), []time.Duration{5500 * time.Millisecond}},
		{"holder isolated", base().fault(history.FaultIsolate, "h1", at(2000), at(30_000)), []time.Duration{5500 * time.Millisecond}},
		{"grantor isolated", base().fault(history.FaultIsolate, "grantor", at(2000), at(30_000)), []time.Duration{5500 * time.Millisecond}},
		{"another holder isolated", base().fault(history.FaultIsolate, "h3", at(2000), at(30_000)), nil},
		{"grantor crash is not the holder's failure", base().fault(history.FaultCrash, "grantor", at(2000), at(3000)), nil},
		{"partition apart", base().faultDetail(history.FaultPartition, "", "", "[h1 h3] | [grantor store]", at(2000), at(30_000)),
			[]time.Duration{5500 * time.Millisecond}},
		{"partition together", base().faultDetail(history.FaultPartition, "", "", "[h1 grantor] | [h2]", at(2000), at(30_000)), nil},
		{"split bystander keeps its links", base().faultDetail(history.FaultSplit, "", "", "[h2] | [grantor]", at(2000), at(30_000)), nil},
		{"bridge apart", base().faultDetail(history.FaultBridge, "store", "", "[h1] | [grantor h2]", at(2000), at(30_000)),
			[]time.Duration{5500 * time.Millisecond}},
		{"one way, grantor to holder", base().faultDetail(history.FaultPartitionOneWay, "grantor", "h1", "", at(2000), at(30_000)),
			[]time.Duration{5500 * time.Millisecond}},
		{"one way, holder to grantor", base().faultDetail(history.FaultPartitionOneWay, "h1", "grantor", "", at(2000), at(30_000)),
			[]time.Duration{5500 * time.Millisecond}},
		{"one way elsewhere", base().faultDetail(history.FaultPartitionOneWay, "h1", "h2", "", at(2000), at(30_000)), nil},
		{"a cut before the belief", base().fault(history.FaultIsolate, "h1", at(-1000), at(-500)), nil},
		{"holder crash, restarted, takes its lease back", takenBack().fault(history.FaultCrash, "h1", at(2000), at(5800)),
			[]time.Duration{4 * time.Second}},
		{"holder isolated, reconnects, takes its lease back", takenBack().fault(history.FaultIsolate, "h1", at(2000), at(5800)),
			[]time.Duration{4 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Measure(tt.h.build())
			assert.Equal(t, tt.want, m.FailoverSamples)
			assert.Equal(t, len(tt.want), m.Failovers)
			if len(tt.want) > 0 {
				assert.Equal(t, tt.want[0], m.FailoverP50)
				assert.Equal(t, tt.want[0], m.FailoverMax)
				assert.Equal(t, tt.want[0], m.FailoverMean)
			}
		})
	}
	m := Measure(newHistory().acquire("h1", "lock", 1, at(0)).belief("h1", "lock", 1, at(0), at(5000)).
		fault(history.FaultCrash, "h1", at(2000), at(30_000)).build())
	assert.Equal(t, 1, m.FailoversUnresolved, "nobody else was granted the lock")
}

func TestPercentile(t *testing.T) {
	s := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x)
		}
		return out
	}
	tests := []struct {
		samples []time.Duration
		p       int
		want    time.Duration
	}{
		{nil, 50, 0},
		{s(7), 50, 7},
		{s(7), 99, 7},
		{s(1, 2), 50, 1},
		{s(1, 2, 3), 50, 2},
		{s(1, 2, 3, 4), 50, 2},
		{s(1, 2, 3, 4), 100, 4},
		{s(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10},
		{s(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, dist.Quantile(tt.samples, float64(tt.p)/100), "p%d of %v", tt.p, tt.samples)
	}
}

// TestMergeProperty: merging per-run metrics in any order, one by one or
// all at once, gives the metrics of the pooled samples.
func TestMergeProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		runs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Metrics {
			m := Metrics{Runs: 1, SimTime: time.Minute,
				Acquisitions:    rapid.IntRange(0, 50).Draw(t, "acquisitions"),
				UnitsExecuted:   rapid.IntRange(0, 100).Draw(t, "units"),
				UnitsReexecuted: rapid.IntRange(0, 10).Draw(t, "reexecuted"),
				StoreWrites:     rapid.Uint64Range(0, 500).Draw(t, "writes"),
			}
			for _, x := range rapid.SliceOfN(rapid.Int64Range(0, 1e10), 0, 8).Draw(t, "failovers") {
				m.FailoverSamples = append(m.FailoverSamples, time.Duration(x))
			}
			slices.Sort(m.FailoverSamples)
			m.derive()
			return m
		}), 1, 8).Draw(t, "runs")

		all := Aggregate(runs...)
		var pooled []time.Duration
		for _, m := range runs {
			pooled = append(pooled, m.FailoverSamples...)
		}
		slices.Sort(pooled)
		require.Equal(t, len(runs), all.Runs)
		require.Equal(t, time.Duration(len(runs))*time.Minute, all.SimTime)
		require.Equal(t, dist.Quantile(pooled, 0.99), all.FailoverP99)
		require.Equal(t, len(pooled), all.Failovers)

		var one Metrics
		for _, i := range rapid.Permutation(indexes(len(runs))).Draw(t, "order") {
			before := slices.Clone(runs[i].FailoverSamples)
			one = one.Add(runs[i])
			require.Equal(t, before, runs[i].FailoverSamples, "Add leaves its argument alone")
		}
		if len(pooled) == 0 {
			pooled = nil
		}
		if len(one.FailoverSamples) == 0 {
			one.FailoverSamples = nil
		}
		all.FailoverSamples = pooled
		require.Equal(t, all, one)
	})
}

func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func TestMetricsJSON(t *testing.T) {
	m := Measure(handoff("", 4).fault(history.FaultCrash, "w1", at(1000), at(2000)).build())
	raw, err := json.Marshal(m)
	require.NoError(t, err)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(raw, &fields))
	for name := range fields {
		assert.Regexp(t, `^[a-z0-9]+(_[a-z0-9]+)*$`, name, "snake_case")
	}
	for _, name := range []string{"acquisitions", "renewals", "renewal_failures", "false_expirations", "fenced",
		"failovers", "failover_p50_ns", "failover_p99_ns", "failover_max_ns", "failover_mean_ns", "units_reexecuted",
		"reexecuted_fraction", "duplicate_effects", "store_writes_per_s", "task_latency_p50_ns", "task_latency_p99_ns",
		"tasks_unfinished", "runs", "sim_time_ns"} {
		assert.Contains(t, fields, name)
	}
	assert.NotContains(t, string(raw), "samples", "samples stay out of the JSON")
}

func TestMeasureEmpty(t *testing.T) {
	m := Measure(&history.History{})
	why := map[string]string{metricRenewals: "the lease store's operations are not in the history: its server records none",
		metricStoreWrites: "the host does not measure the lease store's durable writes"}
	assert.Equal(t, Metrics{Runs: 1, NotApplicable: map[string]string{
		metricRenewals: why[metricRenewals], metricRenewalFailures: why[metricRenewals],
		metricStoreWrites: why[metricStoreWrites], metricStoreWritesRate: why[metricStoreWrites]}}, m,
		"an empty history measures nothing of the lease store: not zero, unknown")
}
