package dist_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/internal/dist"
)

func TestQuantileIsNearestRank(t *testing.T) {
	tests := []struct {
		samples []int
		q       float64
		want    int
	}{
		{nil, 0.5, 0},
		{[]int{7}, 0.99, 7},
		{[]int{1, 2, 3, 4}, 0.5, 2},
		{[]int{1, 2, 3, 4, 5}, 0.5, 3},
		{[]int{1, 2, 3, 4}, 0, 1},
		{[]int{1, 2, 3, 4}, 1, 4},
		{[]int{1, 2, 3, 4}, 2, 4}, // clamped
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, dist.Quantile(tt.samples, tt.q), "%v q=%v", tt.samples, tt.q)
	}
	// 1,070 samples: ceil(0.99 n) = 1060, where rounding would give 1059.
	assert.Equal(t, int64(1060), dist.Rank(1070, 0.99))
	assert.Panics(t, func() { dist.Rank(0, 0.5) })
}

func TestHistogramEdges(t *testing.T) {
	var h dist.Histogram
	assert.Zero(t, h.Quantile(0.5), "empty: no quantile")
	assert.Empty(t, h.Buckets())
	h.Record(3 * time.Second)
	assert.Equal(t, 3*time.Second, h.Quantile(0.5), "one value: exact")
	assert.Equal(t, 3*time.Second, h.Mean())
	h.Record(-2 * time.Millisecond)
	h.Record(0)
	assert.Equal(t, int64(3), h.Count())
	assert.Equal(t, -2*time.Millisecond, h.Min())
	assert.Equal(t, time.Duration(0), h.Quantile(0.5))
	b := h.Buckets()
	require.Len(t, b, 3)
	assert.Equal(t, -2*time.Millisecond, b[0].Lo, "negatives first, clipped to the minimum")
	assert.Equal(t, 3*time.Second, b[2].Hi, "clipped to the maximum")
	huge := 400 * 24 * time.Hour // beyond the top bucket: counted, and the maximum stays exact
	h.Record(huge)
	assert.Equal(t, huge, h.Max())
	assert.Equal(t, huge, h.Quantile(1))
	assert.Panics(t, func() { h.RecordN(1, -1) })
}

// Property: every quantile of a histogram is within 1% of the exact
// nearest-rank quantile of its values, and counts are exact.
func TestHistogramQuantilesWithinOnePercent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3000).Draw(t, "n")
		seed := rapid.Uint64().Draw(t, "seed")
		r := rand.New(rand.NewPCG(seed, 1))
		var h dist.Histogram
		vals := make([]time.Duration, n)
		for i := range vals {
			// log-uniform from 1µs to 1000s, some negative
			v := time.Duration(math.Exp(r.Float64()*math.Log(1e12)) * 1e3)
			if r.IntN(10) == 0 {
				v = -v
			}
			vals[i] = v
			h.Record(v)
		}
		slices.Sort(vals)
		require.Equal(t, int64(n), h.Count())
		for _, q := range []float64{0, 0.01, 0.5, 0.9, 0.99, 0.999, 1} {
			exact, got := dist.Quantile(vals, q), h.Quantile(q)
			require.InDelta(t, float64(exact), float64(got), math.Abs(float64(exact))*0.01, "q=%v", q)
		}
	})
}

// Property: merging parts gives the histogram of all their values, in any
// order, and JSON round-trips exactly.
func TestHistogramMergeAndJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := rapid.SliceOf(rapid.Int64Range(-1e12, 1e13)).Draw(t, "vals")
		k := rapid.IntRange(1, 5).Draw(t, "parts")
		var whole dist.Histogram
		parts := make([]dist.Histogram, k)
		for i, v := range vals {
			whole.Record(time.Duration(v))
			parts[i%k].Record(time.Duration(v))
		}
		var fwd, back dist.Histogram
		for i := range parts {
			fwd.Merge(parts[i])
			back.Merge(parts[k-1-i])
		}
		for _, h := range []dist.Histogram{fwd, back} {
			require.Equal(t, whole.Count(), h.Count())
			require.Equal(t, whole.Buckets(), h.Buckets())
			require.Equal(t, whole.Min(), h.Min())
			require.Equal(t, whole.Max(), h.Max())
		}
		data, err := json.Marshal(whole)
		require.NoError(t, err)
		var again dist.Histogram
		require.NoError(t, json.Unmarshal(data, &again))
		require.Equal(t, whole.Buckets(), again.Buckets())
		require.Equal(t, whole.Count(), again.Count())
		require.Equal(t, whole.Quantile(0.99), again.Quantile(0.99))
	})
}

func TestHistogramCloneSharesNothing(t *testing.T) {
	var a dist.Histogram
	a.Record(time.Second)
	b := a.Clone()
	b.Record(time.Hour)
	assert.Equal(t, int64(1), a.Count())
	assert.Len(t, a.Buckets(), 1)
	assert.Len(t, b.Buckets(), 2)
}

func TestHistogramSizeDoesNotGrow(t *testing.T) {
	size := func(n int) int {
		r := rand.New(rand.NewPCG(1, 2))
		var h dist.Histogram
		for range n {
			h.Record(time.Duration(r.ExpFloat64() * float64(2*time.Second)))
		}
		data, err := json.Marshal(h)
		require.NoError(t, err)
		return len(data)
	}
	small, large, huge := size(1_000), size(100_000), size(1_000_000)
	t.Logf("JSON bytes: %d for 1,000 values, %d for 100,000, %d for 1,000,000", small, large, huge)
	// At most every bucket of the geometry (about 5,600), each [value, count].
	assert.Less(t, huge, 5632*32, "bounded by the bucket count, not the values")
	assert.Less(t, float64(huge), 1.5*float64(large), "10x the values: a few more tail buckets, longer counts")
}

func TestHistogramRejectsBadJSON(t *testing.T) {
	tests := []struct{ name, in, wantErr string }{
		{"unknown field", `{"count":0,"buckets":[],"extra":1}`, "unknown field"},
		{"short buckets", `{"count":3,"buckets":[[5,1]]}`, "buckets hold 1 values, count says 3"},
		{"too many", `{"count":1,"buckets":[[5,2]]}`, "exceeds the total"},
		{"zero count bucket", `{"count":1,"buckets":[[5,0]]}`, "not positive"},
		{"min above max", `{"count":1,"min_ns":9,"max_ns":5,"buckets":[[5,1]]}`, "min_ns exceeds"},
		{"not an object", `[1]`, "histogram"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h dist.Histogram
			assert.ErrorContains(t, json.Unmarshal([]byte(tt.in), &h), tt.wantErr)
		})
	}
}

func FuzzHistogramJSON(f *testing.F) {
	f.Add([]byte(`{"count":2,"min_ns":-5,"max_ns":9,"sum_ns":4,"buckets":[[-5,1],[9,1]]}`))
	f.Add([]byte(`{"count":0,"buckets":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var h dist.Histogram
		if json.Unmarshal(data, &h) != nil {
			return
		}
		out, err := json.Marshal(h)
		require.NoError(t, err)
		var again dist.Histogram
		require.NoError(t, json.Unmarshal(out, &again), "what is written reads back")
		require.Equal(t, h.Count(), again.Count())
	})
}
