package sweep_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/dist"
	"github.com/leasesim/leasesim/internal/gcwatch"
	"github.com/leasesim/leasesim/sweep"
)

func TestMergeNamesMissingShards(t *testing.T) {
	base := sweep.Summary{Schema: sweep.SummarySchema, Scenarios: []string{"a", "b"}, Impl: "correct", Seeds: "1-12",
		Runs: 6, RunsExpected: 6}
	shard := func(i int) sweep.Summary {
		s := base
		s.Shard = strconv.Itoa(i) + "/4"
		return s
	}
	tests := []struct {
		name        string
		parts       []sweep.Summary
		wantShard   string
		wantMissing []string
		wantRuns    int
		wantExpect  int
	}{
		{"one of four", []sweep.Summary{shard(1)}, "1/4", []string{"2/4", "3/4", "4/4"}, 6, 24},
		{"three of four", []sweep.Summary{shard(4), shard(1), shard(2)}, "1,2,4/4", []string{"3/4"}, 18, 24},
		{"all four", []sweep.Summary{shard(3), shard(1), shard(4), shard(2)}, "1/1", nil, 24, 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sweep.Merge(tt.parts...)
			require.NoError(t, err)
			assert.Equal(t, tt.wantShard, got.Shard)
			assert.Equal(t, tt.wantMissing, got.MissingShards)
			assert.Equal(t, len(tt.wantMissing) > 0, got.Partial, "a missing shard makes the merge partial")
			assert.Equal(t, tt.wantRuns, got.Runs)
			assert.Equal(t, tt.wantExpect, got.RunsExpected, "the missing shards' runs are expected too")
		})
	}
	// A partial merge merged with the rest is whole, and counts nothing twice.
	half, err := sweep.Merge(shard(1), shard(3))
	require.NoError(t, err)
	rest, err := sweep.Merge(shard(2), shard(4))
	require.NoError(t, err)
	whole, err := sweep.Merge(half, rest)
	require.NoError(t, err)
	assert.False(t, whole.Partial)
	assert.Equal(t, 24, whole.RunsExpected)
	_, err = sweep.Merge(half, shard(3))
	assert.ErrorContains(t, err, "part 2: shard 3/4 is already merged", "a duplicate shard is an error")
}

// synthetic builds the summary of shard i of k of a sweep of runs
// synthetic runs (seeds 1..runs), without running anything: every run
// has a few failover samples and a margin, drawn from its seed, and
// every seventh seed fails P4.
func synthetic(i, k, runs int) sweep.Summary {
	s := sweep.Summary{Schema: sweep.SummarySchema, Scenarios: []string{"x"}, Impl: "correct",
		Seeds: "1-" + strconv.Itoa(runs), SeedFirst: 1, SeedLast: uint64(runs), Shard: strconv.Itoa(i) + "/" + strconv.Itoa(k),
		ByProperty: map[string]map[string]sweep.SeedSet{}, Failures: []sweep.Failure{}}
	for seed := uint64(i); seed <= uint64(runs); seed += uint64(k) {
		s.Runs++
		s.RunsExpected++
		for _, d := range syntheticSamples(seed) {
			s.Failover.Record(d)
		}
		s.Margin.Record(time.Duration(int64(seed%1000)-100) * time.Millisecond)
		if seed%7 == 0 {
			set := s.ByProperty["P4"]["x"]
			set.Add(seed)
			if s.ByProperty["P4"] == nil {
				s.ByProperty["P4"] = map[string]sweep.SeedSet{}
			}
			s.ByProperty["P4"]["x"] = set
			if len(s.Failures) < sweep.MaxFailures {
				s.Failures = append(s.Failures, sweep.Failure{Scenario: "x", Seed: seed, Properties: []string{"P4"}})
			} else {
				s.FailuresOmitted++
			}
		}
	}
	return s
}

// syntheticSamples are one run's failover times: a heavy tail, from
// milliseconds to minutes.
func syntheticSamples(seed uint64) []time.Duration {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]time.Duration, 1+r.IntN(3))
	for j := range out {
		out[j] = time.Duration(math.Exp(r.NormFloat64()*1.5+1) * float64(time.Second))
	}
	return out
}

func TestMergeOfKShardsMatchesOneSweep(t *testing.T) {
	const runs = 20_000
	whole := synthetic(1, 1, runs)
	var exact []time.Duration
	for seed := uint64(1); seed <= runs; seed++ {
		exact = append(exact, syntheticSamples(seed)...)
	}
	slices.Sort(exact)
	for _, k := range []int{2, 7, 50} {
		t.Run(strconv.Itoa(k)+" shards", func(t *testing.T) {
			var m sweep.Merger
			for i := k; i >= 1; i-- { // any order
				require.NoError(t, m.Add(roundTrip(t, synthetic(i, k, runs))))
			}
			got, err := m.Summary()
			require.NoError(t, err)
			assert.Equal(t, "1/1", got.Shard)
			assert.Equal(t, whole.Runs, got.Runs)
			assert.Equal(t, int64(len(exact)), got.Failover.Count(), "counts are exact")
			assert.Equal(t, whole.Failover.Buckets(), got.Failover.Buckets(), "the same histogram as one sweep")
			assert.Equal(t, whole.Margin.Buckets(), got.Margin.Buckets())
			assert.Equal(t, whole.ByProperty["P4"]["x"].Count(), got.ByProperty["P4"]["x"].Count())
			assert.Equal(t, int64(runs/7), got.ByProperty["P4"]["x"].Count())
			assert.Equal(t, runs/7, len(got.Failures)+got.FailuresOmitted)
			for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
				want := dist.Quantile(exact, q)
				assert.InEpsilon(t, float64(want), float64(got.Failover.Quantile(q)), 0.01, "q=%v", q)
			}
			assert.Equal(t, exact[len(exact)-1], got.Metrics.FailoverMax, "the maximum is exact")
		})
	}
}

// roundTrip encodes s as JSON and decodes it, as merge reads a shard file.
func roundTrip(t *testing.T, s sweep.Summary) sweep.Summary {
	t.Helper()
	data, err := json.Marshal(s)
	require.NoError(t, err)
	var out sweep.Summary
	require.NoError(t, json.Unmarshal(data, &out))
	return out
}

func TestSummarySizeDoesNotGrowWithRuns(t *testing.T) {
	size := func(runs int) int {
		data, err := json.Marshal(synthetic(1, 1, runs))
		require.NoError(t, err)
		return len(data)
	}
	small, large := size(1_000), size(100_000)
	t.Logf("summary JSON: %d bytes for 1,000 runs, %d bytes for 100,000 runs", small, large)
	assert.Less(t, large, 512<<10, "bounded: histograms, capped failures and seed ranges")
	assert.Less(t, float64(large), 2*float64(small), "100x the runs")
}

// TestMergeMemoryIsFlat merges many shard files one at a time and checks
// that the live heap does not grow with their number. SWEEP_MERGE_SHARDS
// and SWEEP_MERGE_RUNS scale it up for a measurement (1,000 x 10,000), and
// SWEEP_MERGE_KEEP names a directory to keep the shard files in, for
// measuring `simrun merge` itself.
func TestMergeMemoryIsFlat(t *testing.T) {
	shards, runs := envInt("SWEEP_MERGE_SHARDS", 200), envInt("SWEEP_MERGE_RUNS", 500)
	if testing.Short() {
		shards = 50
	}
	dir := os.Getenv("SWEEP_MERGE_KEEP")
	if dir == "" {
		dir = t.TempDir()
	}
	files := make([]string, shards)
	for i := range shards {
		data, err := json.Marshal(synthetic(i+1, shards, shards*runs))
		require.NoError(t, err)
		files[i] = dir + "/shard" + strconv.Itoa(i+1) + ".json"
		require.NoError(t, os.WriteFile(files[i], data, 0o644))
	}
	var m sweep.Merger
	var peak uint64
	var ms runtime.MemStats
	start := time.Now()
	for i, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var s sweep.Summary
		require.NoError(t, json.Unmarshal(data, &s))
		require.NoError(t, m.Add(s))
		if i%max(1, shards/10) == 0 {
			// The live heap from collections that allocation brings
			// about, never runtime.GC.
			live, ok := gcwatch.SettledLiveHeap(4)
			if !ok {
				t.Skip("no collection runs (GOGC=off?): the live heap cannot be judged")
			}
			peak = max(peak, live)
		}
	}
	got, err := m.Summary()
	require.NoError(t, err)
	runtime.ReadMemStats(&ms)
	t.Logf("merged %d shards of %d runs in %v: live heap at most %.1f MB, total allocated %.1f MB, sys %.1f MB",
		shards, runs, time.Since(start).Round(time.Millisecond), float64(peak)/1e6, float64(ms.TotalAlloc)/1e6, float64(ms.Sys)/1e6)
	assert.Equal(t, shards*runs, got.Runs)
	assert.False(t, got.Partial)
	assert.Less(t, peak, uint64(64<<20), "one part and the running total, never every part")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
