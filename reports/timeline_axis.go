package reports

import (
	"math"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/history"
)

// maxMajorTicks bounds the labelled ticks across the whole run at zoom 1.
const maxMajorTicks = 12

// axisTicks returns the ticks of the time axis for a run that ends at end:
// major ticks at a round step (1, 2 or 5 times a power of ten) with at
// most maxMajorTicks of them, and minor ticks between, which the page
// labels only once zoom spreads them apart. It also returns the minor
// spacing in pixels at zoom 1.
func axisTicks(end history.Time, scale timeScale) (ticks []tick, minorPx float64) {
	major := niceStep(time.Duration(end) / maxMajorTicks)
	minor := major / 5
	if mantissa(major) == 2 {
		minor = major / 4
	}
	minor = max(minor, 1)
	for t := time.Duration(0); history.Time(t) <= end; t += minor {
		ticks = append(ticks, tick{X: scale.x(history.Time(t)), Label: tickLabel(t, minor), Minor: t%major != 0})
	}
	return ticks, scale.x(history.Time(minor)) - scale.x(0)
}

// niceStep returns the smallest step of 1, 2 or 5 times a power of ten
// (in nanoseconds) that is at least d.
func niceStep(d time.Duration) time.Duration {
	step := time.Duration(1)
	for step < d && step < math.MaxInt64/10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if step*m >= d {
				return step * m
			}
		}
		step *= 10
	}
	return step
}

// mantissa returns the leading digit of a step from niceStep.
func mantissa(d time.Duration) time.Duration {
	for d >= 10 && d%10 == 0 {
		d /= 10
	}
	return d
}

// tickLabel formats a tick's time in seconds, or in milliseconds when the
// ticks are closer than a second: "12s", "2.5s", "250ms".
func tickLabel(t, step time.Duration) string {
	if step < time.Second && t < time.Second {
		return strconv.FormatFloat(float64(t)/float64(time.Millisecond), 'f', -1, 64) + "ms"
	}
	return strconv.FormatFloat(t.Seconds(), 'f', -1, 64) + "s"
}
