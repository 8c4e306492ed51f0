package dist

import (
	"cmp"
	"math"
)

// Rank returns the nearest rank (from 1) of the q-quantile among n ordered
// samples: ceil(q·n), at least 1 and at most n. q is clamped to [0, 1].
// n must be positive.
func Rank(n int64, q float64) int64 {
	if n <= 0 {
		panic("dist.Rank: n must be positive")
	}
	q = min(max(q, 0), 1)
	r := int64(math.Ceil(q * float64(n)))
	return min(max(r, 1), n)
}

// Quantile returns the nearest-rank q-quantile (0 <= q <= 1) of samples
// sorted ascending, or the zero value if there are none: Quantile(s, 0.5)
// is the median, Quantile(s, 0.99) the 99th percentile, Quantile(s, 1)
// the maximum.
func Quantile[T cmp.Ordered](sorted []T, q float64) T {
	if len(sorted) == 0 {
		var zero T
		return zero
	}
	return sorted[Rank(int64(len(sorted)), q)-1]
}
