package workload

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWorkerIndex(t *testing.T) {
	for _, tt := range []struct {
		name    string
		workers int
		want    int
	}{
		{"w1", 4, 1}, {"w4", 4, 4}, {"w10", 10, 10}, {"w5", 4, 0}, {"w0", 4, 0}, {"w01", 4, 0},
		{"w", 4, 0}, {"", 4, 0}, {"x1", 4, 0}, {"w1x", 4, 0}, {"w-1", 4, 0}, {"w١", 4, 0},
		{"w99999999999999999999999", 1000, 0},
	} {
		require.Equal(t, tt.want, workerIndex(tt.name, tt.workers), "%q of %d", tt.name, tt.workers)
	}
}

func TestExponentialMean(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n, mean = 200_000, time.Second
	var sum time.Duration
	above := 0
	for range n {
		d := exponential(r, mean)
		require.GreaterOrEqual(t, d, time.Duration(0))
		sum += d
		if d > 3*mean {
			above++
		}
	}
	require.InEpsilon(t, float64(mean), float64(sum/n), 0.01, "the mean")
	require.InEpsilon(t, 0.0498, float64(above)/n, 0.05, "the tail: P(X > 3 means) = e^-3")
	require.Equal(t, exponential(rand.New(rand.NewPCG(9, 9)), mean), exponential(rand.New(rand.NewPCG(9, 9)), mean))
}

func TestLogQuantilesKnots(t *testing.T) {
	p := GCPause{PerMinute: 1, P50: 20 * time.Millisecond, P99: 300 * time.Millisecond, Max: 2 * time.Second}
	q := logQuantiles(p)
	require.Len(t, q, quantileSteps+1)
	require.True(t, slices.IsSorted(q), "a quantile function never decreases")
	require.Equal(t, p.P50, q[quantileSteps/2], "the median")
	require.Equal(t, p.Max, q[quantileSteps], "the maximum")
	require.InEpsilon(t, float64(20*time.Millisecond*20/300), float64(q[0]), 0.01, "p50²/p99")

	flat := logQuantiles(GCPause{PerMinute: 1, P50: time.Second, P99: time.Second, Max: time.Second})
	for _, d := range flat {
		require.Equal(t, time.Second, d, "one value when p50 = p99 = max")
	}
	r := rand.New(rand.NewPCG(3, 3))
	for range 10_000 {
		d := q.sample(r)
		require.GreaterOrEqual(t, d, q[0])
		require.LessOrEqual(t, d, p.Max)
	}
}

func TestOverlaps(t *testing.T) {
	spans := []span{{10, 20}, {30, 40}}
	for _, tt := range []struct {
		from, to time.Duration
		want     bool
	}{
		{0, 9, false}, {0, 10, true}, {20, 25, true}, {21, 29, false}, {25, 35, true}, {41, 50, false}, {0, 100, true},
		{15, 15, true}, {25, 25, false},
	} {
		require.Equal(t, tt.want, overlaps(spans, tt.from, tt.to), "[%d, %d]", tt.from, tt.to)
	}
	require.False(t, overlaps(nil, 0, 100))
	require.Equal(t, []span{{1, 5}, {7, 8}}, appendMerged(appendMerged(appendMerged(nil, span{1, 3}), span{2, 5}), span{7, 8}))
}
