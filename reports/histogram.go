package reports

import (
	"fmt"
	"math"
	"slices"
)

// Histogram geometry, in SVG pixels.
const (
	histWidth   = 560.0
	histHeight  = 170.0
	histLeft    = 40.0 // room for the count axis
	histBottom  = 24.0 // room for the value axis
	histTop     = 8.0
	histMaxBins = 30
)

// histogram is the view model of an inline SVG histogram.
type histogram struct {
	Title         string
	Width, Height float64
	Count         int
	Bars          []histBar
	Axis          []histLabel // along the bottom
	YMax          int
	PlotX, PlotY  float64 // the plot's lower-left corner
	PlotW         float64
	Summary       string
}

type histBar struct {
	X, Y, W, H float64
	Count      int
	Negative   bool // the bin lies (partly) below zero: an overlap, for a margin
	Title      string
}

type histLabel struct {
	X     float64
	Label string
}

// newHistogram bins samples (in seconds) into at most histMaxBins equal
// bins, about the square root of the sample count, between the smallest
// and largest sample.
func newHistogram(title string, samples []float64) histogram {
	h := histogram{Title: title, Width: histWidth, Height: histHeight, Count: len(samples),
		PlotX: histLeft, PlotY: histHeight - histBottom, PlotW: histWidth - histLeft - 40,
		Summary: distribution(samples)}
	if len(samples) == 0 {
		return h
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	lo, hi := sorted[0], sorted[len(sorted)-1]
	n := min(histMaxBins, max(1, int(math.Ceil(math.Sqrt(float64(len(sorted)))))))
	width := (hi - lo) / float64(n)
	if width == 0 {
		n, width, hi = 1, 1, lo+1
	}
	if lo < 0 && hi > 0 {
		// Put a bin edge at zero, so that a bin is either an overlap or not.
		lo = math.Floor(lo/width) * width
		n = min(histMaxBins+1, int(math.Ceil((hi-lo)/width)))
		hi = lo + float64(n)*width
	}
	counts := make([]int, n)
	for _, v := range sorted {
		counts[min(max(int((v-lo)/width), 0), n-1)]++
	}
	h.YMax = slices.Max(counts)
	plotH := h.PlotY - histTop
	barW := h.PlotW / float64(n)
	for i, c := range counts {
		a, b := lo+float64(i)*width, lo+float64(i+1)*width
		bh := plotH * float64(c) / float64(h.YMax)
		h.Bars = append(h.Bars, histBar{X: h.PlotX + float64(i)*barW + 0.5, Y: h.PlotY - bh, Count: c,
			W: max(barW-1, 1), H: bh, Negative: b <= 0,
			Title: fmt.Sprintf("%s – %s: %d", formatSeconds(a), formatSeconds(b), c)})
	}
	h.Axis = []histLabel{{X: h.PlotX, Label: formatSeconds(lo)}, {X: h.PlotX + h.PlotW, Label: formatSeconds(hi)}}
	if sorted[0] == sorted[len(sorted)-1] { // one value: one bar, one label
		h.Bars[0].Title = fmt.Sprintf("%s: %d", formatSeconds(lo), counts[0])
		h.Axis = []histLabel{{X: h.PlotX + h.PlotW/2, Label: formatSeconds(lo)}}
	}
	if lo < 0 && hi > 0 {
		h.Axis = append(h.Axis, histLabel{X: h.PlotX + h.PlotW*(-lo)/(hi-lo), Label: "0"})
	}
	return h
}
