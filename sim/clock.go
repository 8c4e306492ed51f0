package sim

import (
	"math"
	"math/bits"
	"sort"
	"time"
)

// ppbOne is a rate of 1 in parts per billion.
const ppbOne = 1_000_000_000

// maxSpan bounds the true-time spans the clock maths works with: 2^62 ns is
// about 146 years. Beyond it a reading saturates instead of overflowing.
const maxSpan = 1 << 62

// Epoch is what every node's wall clock reads at true time zero, before any
// step or drift. It is fixed so that wall readings are reproducible.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// segment is a stretch of true time during which a clock runs at one rate.
type segment struct {
	trueStart Time
	monoStart time.Duration
	driftPPB  int64 // rate is 1 + driftPPB/1e9, with -1e9 < driftPPB <= 1e9
}

// clock is a node's monotonic clock: a piecewise-linear, non-decreasing
// function of true time. Its segments are kept so that a local reading can
// be mapped back to true time after the run. All arithmetic is integer, so
// the clock reads the same on every architecture.
type clock struct {
	cur  segment   // the segment in force now, a copy of segs' last
	segs []segment // every segment so far, oldest first
}

func newClock(origin time.Duration) clock {
	s := segment{trueStart: 0, monoStart: origin}
	return clock{cur: s, segs: []segment{s}}
}

// scale returns d*ppb/1e9 truncated toward zero. It requires 0 <= d and
// |ppb| <= 1e9, so the quotient fits and never overflows.
func scale(d time.Duration, ppb int64) time.Duration {
	if ppb == 0 || d == 0 {
		return 0
	}
	neg := ppb < 0
	if neg {
		ppb = -ppb
	}
	hi, lo := bits.Mul64(uint64(d), uint64(ppb))
	q, _ := bits.Div64(hi, lo, ppbOne)
	if neg {
		return -time.Duration(q)
	}
	return time.Duration(q)
}

// advance returns how far the clock moves during d >= 0 of true time at
// ppb, saturating at the largest Duration.
func advance(d time.Duration, ppb int64) time.Duration {
	s := d + scale(d, ppb)
	if s < d && ppb > 0 {
		return math.MaxInt64
	}
	return s
}

// at returns the monotonic reading at true time t. Times before zero read as
// the origin.
func (c *clock) at(t Time) time.Duration {
	s := &c.cur
	if t < s.trueStart {
		s = c.segmentAtTrue(t)
	}
	d := max(t.Sub(s.trueStart), 0)
	if s.driftPPB == 0 {
		return satAdd(s.monoStart, d)
	}
	return satAdd(s.monoStart, advance(d, s.driftPPB))
}

// trueAt returns the earliest true time at which the clock reads at least m,
// assuming the current rate continues, or Never if that is beyond maxSpan.
// Readings at or before the clock's origin map to time zero.
func (c *clock) trueAt(m time.Duration) Time {
	s := &c.cur
	if m <= s.monoStart {
		s = c.segmentAtMono(m)
	}
	want := m - s.monoStart
	switch {
	case want <= 0:
		return s.trueStart
	case s.driftPPB == 0:
		return s.trueStart.Add(want)
	}
	// First guess by inverting the rate, then correct for truncation.
	rate := uint64(ppbOne + s.driftPPB)
	hi, lo := bits.Mul64(uint64(want), ppbOne)
	if hi >= rate {
		return Never
	}
	guess, _ := bits.Div64(hi, lo, rate)
	if guess > maxSpan {
		return Never
	}
	d := time.Duration(guess)
	for advance(d, s.driftPPB) < want {
		d++
	}
	for d > 0 && advance(d-1, s.driftPPB) >= want {
		d--
	}
	return s.trueStart.Add(d)
}

// setDrift starts a new segment at true time now.
func (c *clock) setDrift(now Time, ppb int64) {
	if ppb <= -ppbOne || ppb > ppbOne {
		panic("sim: invariant clock-drift-bounded: drift must be in (-1, 1]")
	}
	mono := c.at(now)
	if c.cur.trueStart == now {
		c.cur.driftPPB = ppb
	} else {
		c.cur = segment{trueStart: now, monoStart: mono, driftPPB: ppb}
		c.segs = append(c.segs, c.cur)
	}
	c.segs[len(c.segs)-1] = c.cur
}

func (c *clock) drift() int64 { return c.cur.driftPPB }

// segmentAtTrue returns the segment in force at true time t.
func (c *clock) segmentAtTrue(t Time) *segment {
	i := sort.Search(len(c.segs), func(i int) bool { return c.segs[i].trueStart > t })
	return &c.segs[max(i-1, 0)]
}

// segmentAtMono returns the segment in which the clock first reads m: the
// last one that starts below m (or the first segment). A slow clock can read
// the same value for a few nanoseconds, so several segments may start at the
// same reading; the earliest time the clock reads m lies in the segment
// before them.
func (c *clock) segmentAtMono(m time.Duration) *segment {
	i := sort.Search(len(c.segs), func(i int) bool { return c.segs[i].monoStart >= m })
	return &c.segs[max(i-1, 0)]
}

// satAdd returns a+b for b >= 0, saturating at the largest Duration.
func satAdd(a, b time.Duration) time.Duration {
	s := a + b
	if s < a {
		return math.MaxInt64
	}
	return s
}
