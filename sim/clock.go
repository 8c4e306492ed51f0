package sim

import (
	"math/bits"
	"sort"
	"time"
)

// ppbOne is a rate of 1 in parts per billion.
const ppbOne = 1_000_000_000

// Epoch is what every node's wall clock reads at true time zero, before any
// step or drift. It is fixed so that wall readings are reproducible.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// segment is a stretch of true time during which a clock runs at one rate.
type segment struct {
	trueStart Time
	monoStart time.Duration
	driftPPB  int64 // rate is 1 + driftPPB/1e9
}

// clock is a node's monotonic clock: a piecewise-linear, strictly increasing
// function of true time. Its segments are kept so that a local reading can be
// mapped back to true time after the run. All arithmetic is integer, so the
// clock reads the same on every architecture.
type clock struct {
	segs []segment
}

func newClock(origin time.Duration) clock {
	return clock{segs: []segment{{trueStart: 0, monoStart: origin}}}
}

// scale returns d*ppb/1e9 truncated toward zero, without overflow.
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

// advance returns how far the clock moves during d of true time at ppb.
func advance(d time.Duration, ppb int64) time.Duration { return d + scale(d, ppb) }

// at returns the monotonic reading at true time t.
func (c *clock) at(t Time) time.Duration {
	s := c.segmentAtTrue(t)
	return s.monoStart + advance(t.Sub(s.trueStart), s.driftPPB)
}

// trueAt returns the earliest true time at which the clock reads at least m.
// Readings before the clock's origin map to time zero.
func (c *clock) trueAt(m time.Duration) Time {
	s := c.segmentAtMono(m)
	want := m - s.monoStart
	if want <= 0 {
		return s.trueStart
	}
	// First guess by inverting the rate, then correct for truncation.
	hi, lo := bits.Mul64(uint64(want), ppbOne)
	guess, _ := bits.Div64(hi, lo, uint64(ppbOne+s.driftPPB))
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
	if ppb <= -ppbOne {
		panic("sim: clock rate must stay positive (drift > -1)")
	}
	mono := c.at(now)
	last := &c.segs[len(c.segs)-1]
	if last.trueStart == now {
		last.driftPPB = ppb
		return
	}
	c.segs = append(c.segs, segment{trueStart: now, monoStart: mono, driftPPB: ppb})
}

func (c *clock) drift() int64 { return c.segs[len(c.segs)-1].driftPPB }

func (c *clock) segmentAtTrue(t Time) segment {
	last := c.segs[len(c.segs)-1]
	if t >= last.trueStart {
		return last // the common case: reading the clock now
	}
	i := sort.Search(len(c.segs), func(i int) bool { return c.segs[i].trueStart > t })
	return c.segs[max(i-1, 0)]
}

func (c *clock) segmentAtMono(m time.Duration) segment {
	last := c.segs[len(c.segs)-1]
	if m >= last.monoStart {
		return last
	}
	i := sort.Search(len(c.segs), func(i int) bool { return c.segs[i].monoStart > m })
	return c.segs[max(i-1, 0)]
}
