package workload

import (
	"math"
	"math/bits"
	"time"
)

// hist is a histogram of positive durations in logarithmic buckets, 16 per
// octave, so its quantiles are within about 4% of the exact ones and its
// memory does not grow with the samples. Count, Min and Max are exact.
type hist struct {
	buckets  [64 * histSub]int64
	count    int64
	min, max time.Duration
}

// histSub is the number of buckets per octave.
const histSub = 16

// bucket returns the bucket of d >= 1.
func bucket(d time.Duration) int {
	v := uint64(d)
	n := bits.Len64(v) - 1 // v is in [2^n, 2^(n+1))
	frac := 0
	if n >= 4 {
		frac = int((v >> (n - 4)) & (histSub - 1))
	} else {
		frac = int((v << (4 - n)) & (histSub - 1))
	}
	return n*histSub + frac
}

// lower returns the smallest duration in bucket i.
func lower(i int) time.Duration {
	n, frac := i/histSub, uint64(i%histSub)
	if n >= 4 {
		return time.Duration((uint64(histSub) + frac) << (n - 4))
	}
	return time.Duration((uint64(histSub) + frac) >> (4 - n))
}

// add records d; durations below 1ns count as 1ns.
func (h *hist) add(d time.Duration) {
	d = max(d, 1)
	if h.count == 0 || d < h.min {
		h.min = d
	}
	h.max = max(h.max, d)
	h.count++
	h.buckets[bucket(d)]++
}

// quantile returns the q-quantile (0 < q <= 1) by the nearest-rank
// method: the middle of the bucket that holds the ceil(q×count)-th
// smallest sample, kept within [min, max]; the smallest and the largest
// sample are exact. It is 0 for an empty histogram.
func (h *hist) quantile(q float64) time.Duration {
	if h.count == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(q*float64(h.count)))-1, 0)
	switch {
	case rank == 0:
		return h.min
	case rank >= h.count-1:
		return h.max
	}
	var seen int64
	for i, n := range h.buckets {
		seen += n
		if seen > rank {
			mid := lower(i) + (lower(i+1)-lower(i))/2
			return min(max(mid, h.min), h.max)
		}
	}
	return h.max
}
