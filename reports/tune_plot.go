package reports

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/tune"
)

// Plot geometry, in SVG pixels.
const (
	tunePlotWidth  = 560.0
	tunePlotHeight = 340.0
	tunePlotLeft   = 56.0 // room for the y axis and its label
	tunePlotBottom = 44.0 // room for the x axis and its label
	tunePlotTop    = 14.0
	tunePlotRight  = 16.0
)

// plotFrame is the box of a plot: its size, its axes and their ticks.
type plotFrame struct {
	Width, Height    float64
	X0, Y0, X1, Y1   float64 // the plotting area: left, bottom, right, top
	XTicks, YTicks   []axisTick
	XLabel, YLabel   string
	XLabelX, YLabelY float64
	xs, ys           scale
}

// newFrame builds a frame whose axes cover [xlo, xhi] and [ylo, yhi].
func newFrame(xlo, xhi, ylo, yhi float64, xlabel, ylabel, xsuffix, ysuffix string) plotFrame {
	f := plotFrame{Width: tunePlotWidth, Height: tunePlotHeight, X0: tunePlotLeft, Y0: tunePlotHeight - tunePlotBottom,
		X1: tunePlotWidth - tunePlotRight, Y1: tunePlotTop, XLabel: xlabel, YLabel: ylabel}
	xlo, xhi, xt := niceRange(xlo, xhi, 6)
	ylo, yhi, yt := niceRange(ylo, yhi, 5)
	f.xs = scale{lo: xlo, hi: xhi, from: f.X0, to: f.X1}
	f.ys = scale{lo: ylo, hi: yhi, from: f.Y0, to: f.Y1}
	f.XTicks, f.YTicks = ticksOn(f.xs, xt, xsuffix), ticksOn(f.ys, yt, ysuffix)
	f.XLabelX, f.YLabelY = (f.X0+f.X1)/2, (f.Y0+f.Y1)/2
	return f
}

// scatterPlot is store load against re-executed work, a point per
// configuration that ran.
type scatterPlot struct {
	Frame  plotFrame
	Points []scatterPoint
}

type scatterPoint struct {
	X, Y        float64
	Pareto      bool
	Recommended bool
	Violating   bool
	Title       string
}

// newScatter plots every configuration that ran: store writes per second
// across, re-executed percentage up; the frontier filled, the
// recommendation ringed.
func newScatter(res tune.Result) scatterPlot {
	var ran []tune.ConfigResult
	for _, c := range res.Configs {
		if c.Valid && c.Runs > 0 {
			ran = append(ran, c)
		}
	}
	xhi, yhi := 0.0, 0.0
	for _, c := range ran {
		xhi, yhi = max(xhi, c.Metrics.StoreWritesPerWorkloadSecond), max(yhi, 100*c.Metrics.ReexecutedFraction)
	}
	p := scatterPlot{Frame: newFrame(0, xhi, 0, yhi, "store writes per second", "re-executed work (%)", "", "%")}
	for _, c := range ran {
		m := c.Metrics
		p.Points = append(p.Points, scatterPoint{X: p.Frame.xs.at(m.StoreWritesPerWorkloadSecond), Y: p.Frame.ys.at(100 * m.ReexecutedFraction),
			Pareto: c.Pareto, Recommended: c.Recommended, Violating: c.ViolatingRuns > 0,
			Title: fmt.Sprintf("%s\n%.2f store writes/s · %s re-executed · p99 failover %s", c.Label,
				m.StoreWritesPerWorkloadSecond, formatPercent(m.ReexecutedFraction), failoverCell(m))})
	}
	// Draw the frontier and the recommendation last, on top.
	slices.SortStableFunc(p.Points, func(a, b scatterPoint) int { return rank(a) - rank(b) })
	return p
}

func rank(p scatterPoint) int {
	switch {
	case p.Recommended:
		return 2
	case p.Pareto:
		return 1
	}
	return 0
}

// linePlot is p99 failover against TTL, a line per renew interval.
type linePlot struct {
	Frame  plotFrame
	Series []lineSeries
}

type lineSeries struct {
	Name   string
	Color  string
	Path   string // the SVG path through the points
	Points []linePoint
	// LegendY is the legend entry's baseline.
	LegendY float64
}

type linePoint struct {
	X, Y       float64
	YMin, YMax float64 // the range over checkpoint policies
	Title      string
}

// newFailoverLines plots, for each renew interval, the p99 failover at
// each TTL: the mean over the checkpoint policies that ran, with their
// range as a whisker (the checkpoint policy barely moves failover).
func newFailoverLines(res tune.Result) linePlot {
	renews, ttls := tuneAxes(res)
	type cell struct {
		sum, lo, hi float64
		n           int
	}
	cells := map[[2]int]*cell{} // (renew, ttl) index -> cell; looked up, never iterated
	yhi := 0.0
	for _, c := range res.Configs {
		if !c.Valid || c.Runs == 0 || c.Metrics.Failovers == 0 {
			continue
		}
		k := [2]int{slices.Index(renews, tuneSeries(c)), slices.Index(ttls, c.TTLNs)}
		v := c.Metrics.FailoverP99.Seconds()
		e := cells[k]
		if e == nil {
			e = &cell{lo: v, hi: v}
			cells[k] = e
		}
		e.sum, e.n, e.lo, e.hi = e.sum+v, e.n+1, min(e.lo, v), max(e.hi, v)
		yhi = max(yhi, v)
	}
	xhi := 0.0
	if len(ttls) > 0 {
		xhi = ttls[len(ttls)-1].Seconds()
	}
	p := linePlot{Frame: newFrame(0, xhi, 0, yhi, "TTL (s)", "p99 failover (s)", "", "")}
	for i, r := range renews {
		s := lineSeries{Name: r, Color: grantPalette[i%len(grantPalette)], LegendY: p.Frame.Y1 + 14 + 16*float64(i)}
		for j, ttl := range ttls {
			e := cells[[2]int{i, j}]
			if e == nil {
				continue
			}
			mean := e.sum / float64(e.n)
			pt := linePoint{X: p.Frame.xs.at(ttl.Seconds()), Y: p.Frame.ys.at(mean), YMin: p.Frame.ys.at(e.lo), YMax: p.Frame.ys.at(e.hi),
				Title: fmt.Sprintf("ttl=%v %s: p99 failover %s (mean of %d checkpoint policies; %s – %s)",
					ttl, r, formatSeconds(mean), e.n, formatSeconds(e.lo), formatSeconds(e.hi))}
			cmd := "L"
			if len(s.Points) == 0 {
				cmd = "M"
			}
			s.Path += cmd + px(pt.X) + " " + px(pt.Y) + " "
			s.Points = append(s.Points, pt)
		}
		p.Series = append(p.Series, s)
	}
	return p
}

// tuneAxes returns the grid's series, one per renew interval and election
// timeout (tuneSeries), and its TTLs, in grid order and ascending: the
// plots draw a line or a heat map per series.
func tuneAxes(res tune.Result) (series []string, ttls []time.Duration) {
	for _, c := range res.Configs {
		if s := tuneSeries(c); !slices.Contains(series, s) {
			series = append(series, s)
		}
		if !slices.Contains(ttls, c.TTLNs) {
			ttls = append(ttls, c.TTLNs)
		}
	}
	slices.Sort(ttls)
	return series, ttls
}

// tuneSeries names the series a configuration belongs to: "renew ttl/3",
// and " · election 1s" when the grid has an election-timeout axis, so that
// no two configurations of one series share a TTL and checkpoint policy.
func tuneSeries(c tune.ConfigResult) string {
	if c.ElectionTimeout != "" {
		return "renew " + c.Renew + " · election " + c.ElectionTimeout
	}
	return "renew " + c.Renew
}

// checkpointAxis returns the grid's checkpoint policies, in grid order.
func checkpointAxis(res tune.Result) []string {
	var out []string
	for _, c := range res.Configs {
		if !slices.Contains(out, c.Checkpoint) {
			out = append(out, c.Checkpoint)
		}
	}
	return out
}

// formatRate writes a rate per second with two decimals.
func formatRate(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "/s" }
