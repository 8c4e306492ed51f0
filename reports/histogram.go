package reports

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/internal/dist"
)

// Histogram geometry, in SVG pixels.
const (
	histWidth   = 560.0
	histHeight  = 190.0
	histLeft    = 48.0 // room for the count axis
	histRight   = 16.0
	histBottom  = 34.0 // room for the value axis and its ticks
	histTop     = 22.0 // room for the p50 and p99 labels
	histMaxBins = 40
	// histLogRatio is the max/min ratio from which a positive distribution
	// is drawn on a log axis: below it, equal bins read better.
	histLogRatio = 10
)

// histogram is the view model of an inline SVG histogram.
type histogram struct {
	Title         string
	Width, Height float64
	Count         int64
	Bars          []histBar
	Ticks         []histLabel // along the bottom
	Marks         []histLabel // p50, p99
	YMax          int64
	PlotX, PlotY  float64 // the plot's lower-left corner
	PlotW         float64
	Scale         string // "log" or "linear", said under the axis
	Summary       string
}

type histBar struct {
	X, Y, W, H float64
	Count      int64
	Negative   bool // the bin lies below zero: an overlap, for a margin
	Title      string
}

type histLabel struct {
	X     float64
	Label string
}

// axis maps values (seconds) to x positions across the plot, through a
// transform: linear, log (positive values), or symlog (signed values,
// linear within ±c and logarithmic beyond).
type axis struct {
	lo, hi float64
	kind   string // "linear", "log" or "symlog"
	c      float64
	x0, w  float64
}

func (a axis) t(v float64) float64 {
	switch a.kind {
	case "log":
		return math.Log10(v)
	case "symlog":
		return math.Copysign(math.Log10(1+math.Abs(v)/a.c), v)
	}
	return v
}

func (a axis) inv(u float64) float64 {
	switch a.kind {
	case "log":
		return math.Pow(10, u)
	case "symlog":
		return math.Copysign(a.c*(math.Pow(10, math.Abs(u))-1), u)
	}
	return u
}

func (a axis) x(v float64) float64 {
	return a.x0 + a.w*(a.t(v)-a.t(a.lo))/(a.t(a.hi)-a.t(a.lo))
}

// edge returns the value at fraction f of the axis.
func (a axis) edge(f float64) float64 {
	return a.inv(a.t(a.lo) + f*(a.t(a.hi)-a.t(a.lo)))
}

// newAxis chooses the axis for the values of h: log when they are
// positive and span more than histLogRatio, symlog when they have both
// signs and the median lies close to zero compared with the extremes
// (linear within ±c, c the power of ten below the 10th percentile's
// magnitude, so that the bulk spreads out), otherwise linear. An axis with both signs has a bin edge at
// zero, so that a bin is either below zero (an overlap, for a margin) or
// not.
func newAxis(h dist.Histogram, x0, w float64) axis {
	lo, hi, mid := h.Min().Seconds(), h.Max().Seconds(), h.Quantile(0.5).Seconds()
	a := axis{lo: lo, hi: hi, x0: x0, w: w, kind: "linear"}
	if hi == lo { // one value: a bin around it
		a.lo, a.hi = lo-math.Max(math.Abs(lo)*0.1, 1e-6), hi+math.Max(math.Abs(hi)*0.1, 1e-6)
		return a
	}
	spread := math.Max(math.Abs(lo), math.Abs(hi))
	switch {
	case lo > 0 && hi/lo >= histLogRatio:
		a.kind = "log"
		return a
	case lo < 0 && math.Abs(mid) > 0 && spread/math.Abs(mid) >= histLogRatio:
		typical := math.Abs(h.Quantile(0.1).Seconds())
		if typical == 0 || typical > math.Abs(mid) {
			typical = math.Abs(mid)
		}
		a.kind, a.c = "symlog", math.Pow(10, math.Floor(math.Log10(typical)))
	}
	if a.lo < 0 && a.hi > 0 {
		width := (a.t(a.hi) - a.t(a.lo)) / histMaxBins
		a.lo = a.inv(math.Floor(a.t(a.lo)/width) * width)
	}
	return a
}

// newHistogram draws a distribution of durations on the axis newAxis
// chooses (failover times from milliseconds to minutes on a log axis, P1
// margins around zero on a symlog one), in bins of equal width on that
// axis, with the p50 and p99 marked and ticks at round values.
func newHistogram(title string, h dist.Histogram) histogram {
	v := histogram{Title: title, Width: histWidth, Height: histHeight, Count: h.Count(),
		PlotX: histLeft, PlotY: histHeight - histBottom, PlotW: histWidth - histLeft - histRight,
		Summary: distribution(h)}
	if h.Count() == 0 {
		return v
	}
	a := newAxis(h, v.PlotX, v.PlotW)
	v.Scale = a.kind
	counts := make([]int64, histMaxBins)
	for _, b := range h.Buckets() {
		mid := (b.Lo + (b.Hi-b.Lo)/2).Seconds()
		i := int((a.x(mid) - a.x0) / a.w * histMaxBins)
		counts[min(max(i, 0), histMaxBins-1)] += b.Count
	}
	for _, c := range counts {
		v.YMax = max(v.YMax, c)
	}
	plotH, barW := v.PlotY-histTop, v.PlotW/histMaxBins
	for i, c := range counts {
		if c == 0 {
			continue
		}
		from, to := a.edge(float64(i)/histMaxBins), a.edge(float64(i+1)/histMaxBins)
		bh := math.Max(plotH*float64(c)/float64(v.YMax), 1)
		v.Bars = append(v.Bars, histBar{X: v.PlotX + float64(i)*barW + 0.5, Y: v.PlotY - bh, W: math.Max(barW-1, 1), H: bh,
			Count: c, Negative: to <= 0, Title: fmt.Sprintf("%s – %s: %d", formatSeconds(from), formatSeconds(to), c)})
	}
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p99", 0.99}} {
		val := h.Quantile(q.q).Seconds()
		v.Marks = append(v.Marks, histLabel{X: clampX(a, val), Label: q.name + " " + formatTick(val)})
	}
	v.Ticks = ticks(a)
	return v
}

// clampX is a.x(v) kept on the plot.
func clampX(a axis, v float64) float64 {
	return min(max(a.x(v), a.x0), a.x0+a.w)
}

// ticks returns round values along the axis: on a log axis 1, 2 and 5
// times powers of ten (1 and 3 times beyond two decades, only the powers
// beyond four); on a symlog axis zero and the powers of ten from c, with
// both signs; on a linear one about five steps of niceStep.
func ticks(a axis) []histLabel {
	var out []histLabel
	add := func(v float64) {
		if v >= a.lo-1e-12 && v <= a.hi+1e-12 {
			out = append(out, histLabel{X: a.x(v), Label: formatTick(v)})
		}
	}
	switch a.kind {
	case "log":
		mults := []float64{1, 2, 5}
		switch decades := math.Log10(a.hi / a.lo); {
		case decades > 4:
			mults = []float64{1}
		case decades > 2:
			mults = []float64{1, 3}
		}
		for p := math.Floor(math.Log10(a.lo)); p <= math.Ceil(math.Log10(a.hi)); p++ {
			for _, m := range mults {
				add(m * math.Pow(10, p))
			}
		}
		return out
	case "symlog":
		var pows []float64
		for p := a.c * 10; p <= math.Max(-a.lo, a.hi); p *= 10 {
			pows = append(pows, p)
		}
		for i := len(pows) - 1; i >= 0; i-- {
			add(-pows[i])
		}
		add(0)
		for _, p := range pows {
			add(p)
		}
		return out
	}
	step := niceStep(time.Duration(math.Ceil((a.hi - a.lo) / 5 * 1e9))).Seconds()
	for v := math.Ceil(a.lo/step) * step; v <= a.hi+step/1e6; v += step {
		add(math.Round(v/step) * step)
	}
	return out
}

// formatTick writes a round time in seconds briefly: "0", "500µs", "20ms",
// "1.5s", "2m", "1h30m".
func formatTick(s float64) string {
	if s == 0 {
		return "0"
	}
	d := time.Duration(math.Round(s * 1e9))
	abs := d
	if abs < 0 {
		abs = -abs
	}
	var unit time.Duration
	var name string
	switch {
	case abs < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + "ns"
	case abs < time.Millisecond:
		unit, name = time.Microsecond, "µs"
	case abs < time.Second:
		unit, name = time.Millisecond, "ms"
	case abs < time.Minute:
		unit, name = time.Second, "s"
	default:
		return d.Round(time.Second).String()
	}
	return strconv.FormatFloat(float64(d)/float64(unit), 'g', 3, 64) + name
}
