package reports

import (
	"math"
	"strconv"
)

// scale maps a data interval onto a pixel interval, linearly.
type scale struct {
	lo, hi   float64 // data
	from, to float64 // pixels
}

// at returns the pixel of v.
func (s scale) at(v float64) float64 {
	if s.hi == s.lo {
		return (s.from + s.to) / 2
	}
	return s.from + (v-s.lo)/(s.hi-s.lo)*(s.to-s.from)
}

// axisTick is one labelled tick of an axis, at a pixel position.
type axisTick struct {
	Pos   float64
	Label string
}

// niceRange widens [lo, hi] to round ends and returns about n ticks in
// it, at multiples of 1, 2 or 5 × 10^k. An empty range becomes [lo, lo+1]
// (or around zero).
func niceRange(lo, hi float64, n int) (float64, float64, []float64) {
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		if lo == 0 {
			hi = 1
		} else {
			lo, hi = math.Min(0, lo), math.Max(0, hi)*1.2
			if hi == lo {
				hi = lo + 1
			}
		}
	}
	raw := (hi - lo) / float64(max(n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			step = m * mag
			break
		}
	}
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	var ticks []float64
	for i := 0; ; i++ {
		v := lo + float64(i)*step
		if v > hi+step/2 || i > 100 {
			break
		}
		ticks = append(ticks, roundTick(v, step))
	}
	return lo, hi, ticks
}

// roundTick removes floating-point noise from a tick: 0.30000000000000004
// becomes 0.3.
func roundTick(v, step float64) float64 {
	decimals := max(0, -int(math.Floor(math.Log10(step))))
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// tuneTickLabel formats a tick value compactly.
func tuneTickLabel(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// ticksOn places tick values on a scale.
func ticksOn(s scale, values []float64, suffix string) []axisTick {
	ticks := make([]axisTick, len(values))
	for i, v := range values {
		ticks[i] = axisTick{Pos: s.at(v), Label: tuneTickLabel(v) + suffix}
	}
	return ticks
}
