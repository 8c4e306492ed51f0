package reports

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/leasesim/leasesim/tune"
)

// Heat map geometry, in SVG pixels.
const (
	heatCellW = 58.0
	heatCellH = 26.0
	heatLeft  = 52.0 // room for the TTL labels
	heatTop   = 34.0 // room for the title and the checkpoint labels
)

// heatRamp is the colour scale, from the lowest value (the best: every
// metric here is minimised) to the highest: viridis, reversed.
var heatRamp = [][3]float64{{253, 231, 37}, {94, 201, 98}, {33, 145, 140}, {59, 82, 139}, {68, 1, 84}}

// heatGroup is one metric over the grid: a heat map per renew interval,
// TTL down, checkpoint policy across, on one colour scale.
type heatGroup struct {
	Metric string
	Scale  string // "lowest 1.2 s (light) – highest 19 s (dark)"
	Maps   []heatMap
}

type heatMap struct {
	Title         string
	Width, Height float64
	Cols, Rows    []axisTick
	Cells         []heatCell
}

type heatCell struct {
	X, Y, W, H                   float64
	Fill, Text, TextColor, Title string
	Invalid, Recommended, Bad    bool
}

// heatMetric is a metric a heat map shows.
type heatMetric struct {
	name   string
	value  func(tune.Metrics) float64
	format func(tune.Metrics) string
}

var heatMetrics = []heatMetric{
	{"p99 failover", func(m tune.Metrics) float64 { return m.FailoverP99.Seconds() }, failoverCell},
	{"re-executed work", func(m tune.Metrics) float64 { return m.ReexecutedFraction },
		func(m tune.Metrics) string { return formatPercent(m.ReexecutedFraction) }},
	{"store writes per second", func(m tune.Metrics) float64 { return m.StoreWritesPerWorkloadSecond },
		func(m tune.Metrics) string { return strconv.FormatFloat(m.StoreWritesPerWorkloadSecond, 'f', 2, 64) }},
}

// newHeatGroups builds the heat maps of every metric.
func newHeatGroups(res tune.Result) []heatGroup {
	groups := make([]heatGroup, len(heatMetrics))
	for i, hm := range heatMetrics {
		groups[i] = newHeatGroup(res, hm)
	}
	return groups
}

func newHeatGroup(res tune.Result, hm heatMetric) heatGroup {
	renews, ttls := tuneAxes(res)
	ckpts := checkpointAxis(res)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range res.Configs {
		if c.Valid && c.Runs > 0 {
			v := hm.value(c.Metrics)
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	g := heatGroup{Metric: hm.name}
	if !math.IsInf(lo, 0) {
		g.Scale = fmt.Sprintf("light is low (%s), dark is high (%s)", formatHeat(hm, lo), formatHeat(hm, hi))
	}
	for _, r := range renews {
		m := heatMap{Title: r, Width: heatLeft + heatCellW*float64(len(ckpts)) + 4,
			Height: heatTop + heatCellH*float64(len(ttls)) + 4}
		for j, ck := range ckpts {
			m.Cols = append(m.Cols, axisTick{Pos: heatLeft + heatCellW*(float64(j)+0.5), Label: ck})
		}
		for i, ttl := range ttls {
			m.Rows = append(m.Rows, axisTick{Pos: heatTop + heatCellH*(float64(i)+0.5), Label: ttl.String()})
		}
		for _, c := range res.Configs {
			if tuneSeries(c) != r {
				continue
			}
			i, j := slices.Index(ttls, c.TTLNs), slices.Index(ckpts, c.Checkpoint)
			m.Cells = append(m.Cells, heatCellOf(c, hm, lo, hi, heatLeft+heatCellW*float64(j), heatTop+heatCellH*float64(i)))
		}
		g.Maps = append(g.Maps, m)
	}
	return g
}

// heatCellOf is one configuration's cell.
func heatCellOf(c tune.ConfigResult, hm heatMetric, lo, hi, x, y float64) heatCell {
	cell := heatCell{X: x, Y: y, W: heatCellW - 2, H: heatCellH - 2, Recommended: c.Recommended, Bad: c.ViolatingRuns > 0,
		Title: c.Label}
	switch {
	case !c.Valid:
		cell.Invalid, cell.Text, cell.Title = true, "invalid", c.Label+"\ninvalid: "+c.InvalidReason
		return cell
	case c.Runs == 0:
		cell.Invalid, cell.Text, cell.Title = true, "not run", c.Label+"\nnot run (interrupted)"
		return cell
	}
	t := 0.0
	if hi > lo {
		t = (hm.value(c.Metrics) - lo) / (hi - lo)
	}
	cell.Fill, cell.TextColor = rampColor(t), "#1b1b1b"
	if t > 0.45 {
		cell.TextColor = "#ffffff"
	}
	cell.Text = hm.format(c.Metrics)
	cell.Title = fmt.Sprintf("%s\n%s: %s", c.Label, hm.name, cell.Text)
	return cell
}

// rampColor returns the colour at t in [0, 1] on heatRamp.
func rampColor(t float64) string {
	t = min(max(t, 0), 1) * float64(len(heatRamp)-1)
	i := min(int(t), len(heatRamp)-2)
	f := t - float64(i)
	a, b := heatRamp[i], heatRamp[i+1]
	var rgb [3]int
	for k := range rgb {
		rgb[k] = int(math.Round(a[k] + f*(b[k]-a[k])))
	}
	return fmt.Sprintf("#%02x%02x%02x", rgb[0], rgb[1], rgb[2])
}

// formatHeat formats a metric's raw value for the scale's legend.
func formatHeat(hm heatMetric, v float64) string {
	switch hm.name {
	case "p99 failover":
		return formatSeconds(v)
	case "re-executed work":
		return formatPercent(v)
	}
	return formatRate(v)
}
