package dist

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The geometry of every Histogram: values from 1 ns to about 13 days in
// log buckets of two significant figures (a bucket spans at most 1/128 of
// its values, so a bucket's midpoint is within 0.4% of any value in it).
// Magnitudes beyond the top are counted in the top bucket; Max still says
// the exact largest value.
const (
	lowest      = 1
	highest     = 1 << 50
	significant = 2
)

// Histogram is a mergeable distribution of durations, negative ones
// included (a P1 margin below zero is an overlap). Counts, minimum,
// maximum and sum are exact; quantiles are within 1% of the exact
// nearest-rank ones. Its size is fixed: it does not grow with the number
// of values it counts. The sum is kept in nanoseconds: it is exact up to
// 292 years of summed values.
//
// The zero Histogram is empty and ready to use. A Histogram holds
// pointers: copy one with Clone before changing either copy.
type Histogram struct {
	count    int64
	min, max time.Duration
	sum      time.Duration  // exact, so that merging in any order gives the same sum
	pos, neg *hdr.Histogram // magnitudes of values >= 0 and < 0; nil until used
}

// Bucket is a range of values [Lo, Hi] and how many values fell in it.
type Bucket struct {
	Lo, Hi time.Duration
	Count  int64
}

func newHDR() *hdr.Histogram { return hdr.New(lowest, highest, significant) }

// Record counts one value.
func (h *Histogram) Record(d time.Duration) { h.RecordN(d, 1) }

// RecordN counts n values d. n must not be negative.
func (h *Histogram) RecordN(d time.Duration, n int64) {
	if n < 0 {
		panic("dist.Histogram.RecordN: negative count")
	}
	if n == 0 {
		return
	}
	side, mag := &h.pos, int64(d)
	if d < 0 {
		side, mag = &h.neg, -int64(d)
	}
	if *side == nil {
		*side = newHDR()
	}
	if err := (*side).RecordValues(min(mag, highest-1), n); err != nil {
		panic("dist.Histogram: " + err.Error()) // cannot happen: clamped into range
	}
	if h.count == 0 || d < h.min {
		h.min = d
	}
	if h.count == 0 || d > h.max {
		h.max = d
	}
	h.count += n
	h.sum += d * time.Duration(n)
}

// Merge adds every value o counts to h. Merging in any order gives the
// same counts, buckets, minimum, maximum and sum.
func (h *Histogram) Merge(o Histogram) {
	if o.count == 0 {
		return
	}
	for _, side := range []struct{ dst, src **hdr.Histogram }{{&h.pos, &o.pos}, {&h.neg, &o.neg}} {
		if *side.src == nil || (*side.src).TotalCount() == 0 {
			continue
		}
		if *side.dst == nil {
			*side.dst = newHDR()
		}
		if dropped := (*side.dst).Merge(*side.src); dropped != 0 {
			panic("dist.Histogram.Merge: values dropped") // cannot happen: one geometry
		}
	}
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	if h.count == 0 || o.max > h.max {
		h.max = o.max
	}
	h.count += o.count
	h.sum += o.sum
}

// Clone returns a copy of h that shares nothing with it.
func (h Histogram) Clone() Histogram {
	if h.pos != nil {
		h.pos = h.pos.Clone()
	}
	if h.neg != nil {
		h.neg = h.neg.Clone()
	}
	return h
}

// Count is how many values h counts.
func (h Histogram) Count() int64 { return h.count }

// Min is the smallest value, 0 if there is none.
func (h Histogram) Min() time.Duration { return h.min }

// Max is the largest value, 0 if there is none.
func (h Histogram) Max() time.Duration { return h.max }

// Mean is the mean value, 0 if there is none.
func (h Histogram) Mean() time.Duration {
	if h.count == 0 {
		return 0
	}
	return h.sum / time.Duration(h.count)
}

// Quantile returns the q-quantile (0 <= q <= 1) by the nearest rank of
// Rank: the exact minimum at rank 1 and the exact maximum at rank Count,
// otherwise the midpoint of the bucket that holds the rank, within 1% of
// the exact value. It returns 0 for an empty histogram.
func (h Histogram) Quantile(q float64) time.Duration {
	if h.count == 0 {
		return 0
	}
	rank := Rank(h.count, q)
	switch rank {
	case 1:
		return h.min
	case h.count:
		return h.max
	}
	var seen int64
	for _, b := range h.Buckets() {
		seen += b.Count
		if seen >= rank {
			return min(max(b.Lo+(b.Hi-b.Lo)/2, h.min), h.max)
		}
	}
	return h.max // cannot happen: the buckets hold count values
}

// Buckets returns the non-empty buckets in ascending order of value, each
// clipped to [Min, Max].
func (h Histogram) Buckets() []Bucket {
	var out []Bucket
	h.each(func(b Bucket, _ time.Duration) {
		b.Lo, b.Hi = min(max(b.Lo, h.min), h.max), min(max(b.Hi, h.min), h.max)
		out = append(out, b)
	})
	return out
}

// each calls fn for each non-empty bucket in ascending order of value,
// with a value that falls in it (what the JSON form records).
func (h Histogram) each(fn func(b Bucket, rep time.Duration)) {
	if h.neg != nil {
		bars := h.neg.Distribution()
		for i := len(bars) - 1; i >= 0; i-- {
			if b := bars[i]; b.Count > 0 {
				fn(Bucket{Lo: -time.Duration(b.To), Hi: -time.Duration(b.From), Count: b.Count}, -time.Duration(b.From))
			}
		}
	}
	if h.pos != nil {
		for _, b := range h.pos.Distribution() {
			if b.Count > 0 {
				fn(Bucket{Lo: time.Duration(b.From), Hi: time.Duration(b.To), Count: b.Count}, time.Duration(b.From))
			}
		}
	}
}
