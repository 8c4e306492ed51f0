package faults

import (
	"math/rand/v2"
	"time"
)

// Edge bias: how often and how tightly a duration is drawn near a boundary.
const (
	// edgeOneIn: one draw in edgeOneIn lands near a boundary.
	edgeOneIn = 2
	// edgeSpreadPercent: a draw near boundary b lies in b ± b*edgeSpreadPercent/100.
	edgeSpreadPercent = 2
)

// edgeBiased draws a duration in [lo, hi]. One draw in edgeOneIn picks one
// of the boundaries inside [lo, hi] and lands within ±edgeSpreadPercent of
// it (clamped to the range), where off-by-a-little bugs live: a pause just
// shorter or just longer than the TTL. The others are uniform on [lo, hi].
// All arithmetic is integer.
func edgeBiased(r *rand.Rand, lo, hi time.Duration, boundaries []time.Duration) time.Duration {
	if lo < 0 || hi < lo {
		panic("faults: invariant edge-range: want 0 <= lo <= hi")
	}
	inside := 0
	for _, b := range boundaries {
		if b >= lo && b <= hi {
			inside++
		}
	}
	if inside > 0 && r.IntN(edgeOneIn) == 0 {
		k := r.IntN(inside)
		for _, b := range boundaries {
			if b < lo || b > hi {
				continue
			}
			if k > 0 {
				k--
				continue
			}
			spread := b * edgeSpreadPercent / 100
			v := b - spread + time.Duration(r.Int64N(int64(2*spread)+1))
			return min(max(v, lo), hi)
		}
	}
	return lo + time.Duration(r.Int64N(int64(hi-lo)+1))
}

// driftPPB draws a drift in parts per billion: exactly +rho or -rho with
// probability 1/4 each (the edges the lease's safety margin is computed
// for), otherwise uniform in [-rho, +rho]; and, when DriftBeyondRho is set,
// one draw in five goes beyond rho, up to 4*rho (at least 0.1%, at most
// 50%) either way. With rho zero, only beyond-rho draws remain.
func (d *drawer) driftPPB() int64 {
	rho := d.rhoPPB
	choices := 4
	if d.n.DriftBeyondRho {
		choices = 5
	}
	c := d.r.IntN(choices)
	if rho == 0 {
		c = 4
	}
	switch c {
	case 0:
		return rho
	case 1:
		return -rho
	case 2, 3:
		return d.r.Int64N(2*rho+1) - rho
	}
	top := min(max(4*rho, 1_000_000), 500_000_000)
	mag := rho + 1 + d.r.Int64N(top-rho)
	if d.r.IntN(2) == 0 {
		mag = -mag
	}
	return mag
}
