package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
)

// Timeline geometry, in SVG pixels at zoom 1.
const (
	plotWidth  = 1000.0 // the run's whole duration
	plotPad    = 8.0    // left and right of the plot
	axisHeight = 30.0   // the time axis above the lanes
	barHeight  = 14.0   // one belief bar
	stripH     = 10.0   // under a bar: the marks of what was done under it
	rowHeight  = barHeight + stripH
	rowGap     = 4.0 // between the rows of one lane
	lanePad    = 6.0 // above and below the rows of a lane
	laneGap    = 2.0 // between lanes
	minBar     = 1.0 // the narrowest bar or shade drawn
	charWidth  = 6.5 // an estimate of a label character's width
)

// maxLegendGrants bounds the grants the legend lists; every bar's hover
// text names its grant anyway.
const maxLegendGrants = 36

// networkLane names the lane that shows partitions, splits and bridges,
// which act on the whole network rather than on one node.
const networkLane = "network"

// timeline is the view model of a run's SVG timeline: every shape already
// placed, so the template only writes them out. Everything is in plot
// coordinates at zoom 1; the page's script rescales x for zoom.
type timeline struct {
	Width, Height float64
	Pad           float64
	MinorPx       float64 // the spacing of minor ticks, for the zoom script
	Ticks         []tick
	Lanes         []lane
	Lines         []vline // violations and the start of the heal phase
	Grants        []grantKey
	MoreGrants    int // grants left out of the legend
}

// lane is one node's horizontal strip.
type lane struct {
	Name   string
	Y, H   float64
	Rows   int
	Shades []shade
	Bars   []bar
	Marks  []mark
}

// shade is a fault's region on a lane, or an instant fault's line (W = 0).
type shade struct {
	X, W, Y, H float64
	Class      string
	Title      string
	Label      string
}

// bar is one belief interval, or (class "fence") an interval in which the
// fenced store accepted a token.
type bar struct {
	X, W, Y, H float64
	Class      string
	Fill       string
	Label      string
	LabelFits  bool // the label fits in the bar at zoom 1
	Title      string
}

// mark is one operation at an instant; Kind picks its shape.
type mark struct {
	X, Y  float64
	Kind  string // write, fenced, checkpoint, checkpoint-fenced, renew, renew-refused, grant
	Fill  string
	Title string
}

// vline is a vertical line across every lane, labelled at LabelY.
type vline struct {
	X      float64
	Class  string
	Label  string
	LabelY float64
	Title  string
}

// Where the labels of vertical lines go: at the foot of the axis, stepping
// down when two labels would overlap.
const (
	labelTop  = 28.0
	labelStep = 12.0
	labelGap  = 30.0
)

// tick is one mark of the time axis.
type tick struct {
	X     float64
	Label string
	Minor bool
}

// grantKey is one grant in the legend: its colour and who held it.
type grantKey struct {
	Label  string
	Fill   string
	Holder string
}

// timeScale maps true time to x.
type timeScale struct{ end history.Time }

func (s timeScale) x(t history.Time) float64 {
	t = min(max(t, 0), s.end)
	return plotPad + float64(t)/float64(s.end)*plotWidth
}

// width returns the width of [a, b], at least minBar.
func (s timeScale) width(a, b history.Time) float64 {
	return max(s.x(b)-s.x(a), minBar)
}

// buildTimeline lays out the timeline of an outcome: a lane per node
// (after a network lane when the network was partitioned), the beliefs as
// bars coloured by grant, the operations as marks on the client's lane,
// the faults as shaded regions, and the violations as vertical lines.
func buildTimeline(run Run, h *history.History) timeline {
	end := max(h.End, 1)
	scale := timeScale{end: end}
	colors := newGrantColors(h)
	tl := timeline{Width: plotWidth + 2*plotPad, Pad: plotPad}
	tl.Ticks, tl.MinorPx = axisTicks(end, scale)

	names := nodesOf(h, run.Faults)
	if hasNetworkFaults(h.Faults) {
		names = append([]string{networkLane}, names...)
	}
	beliefs := beliefsByHolder(h)
	y := axisHeight
	index := map[string]int{}
	for _, name := range names {
		ln := newLane(name, y, beliefs[name], scale, colors)
		if name == h.Resource {
			ln = newFenceLane(name, y, h, scale, colors)
		}
		index[name] = len(tl.Lanes)
		tl.Lanes = append(tl.Lanes, ln)
		y += ln.H + laneGap
	}
	tl.Height = y
	addFaultShades(tl.Lanes, index, h, run.Faults, scale)
	addOpMarks(tl.Lanes, index, h, beliefs, scale, colors)
	tl.Lines = timelineLines(run, h, scale)
	tl.Grants = grantLegend(h, colors)
	if len(tl.Grants) > maxLegendGrants {
		tl.Grants, tl.MoreGrants = tl.Grants[:maxLegendGrants], len(tl.Grants)-maxLegendGrants
	}
	return tl
}

// beliefsByHolder groups a history's beliefs by holder, each sorted by
// start.
func beliefsByHolder(h *history.History) map[string][]history.BeliefInterval {
	by := map[string][]history.BeliefInterval{}
	for _, b := range h.Beliefs {
		by[b.Holder] = append(by[b.Holder], b)
	}
	for _, bs := range by {
		slices.SortStableFunc(bs, compareBeliefs)
	}
	return by
}

// beliefRows packs a holder's beliefs into rows, so that beliefs on
// different resources that overlap in time are both visible.
func beliefRows(bs []history.BeliefInterval) (rows []int, n int) {
	spans := make([]span, len(bs))
	for i, b := range bs {
		spans[i] = span{b.Start, b.End}
	}
	return packRows(spans)
}

// rowY returns the top of row r of a lane that starts at y.
func rowY(y float64, r int) float64 {
	return y + lanePad + float64(r)*(rowHeight+rowGap)
}

// newLane lays out one node's lane and its belief bars.
func newLane(name string, y float64, bs []history.BeliefInterval, scale timeScale, colors grantColors) lane {
	rows, n := beliefRows(bs)
	ln := emptyLane(name, y, n)
	for i, b := range bs {
		g := grant{b.Resource, b.Token}
		label := grantLabel(g)
		x, w := scale.x(b.Start), scale.width(b.Start, b.End)
		ln.Bars = append(ln.Bars, bar{
			X: x, W: w, Y: rowY(y, rows[i]), H: barHeight, Class: "belief", Fill: colors.of(g),
			Label: label, LabelFits: w >= float64(len(label))*charWidth+6,
			Title: beliefTitle(b),
		})
	}
	return ln
}

// emptyLane returns a lane of n rows at y.
func emptyLane(name string, y float64, n int) lane {
	return lane{Name: name, Y: y, Rows: n, H: 2*lanePad + float64(n)*rowHeight + float64(n-1)*rowGap}
}

// grantLabel names a grant as reports show it: "lock #2".
func grantLabel(g grant) string { return fmt.Sprintf("%s #%d", g.Resource, g.Token) }

// beliefTitle is a belief bar's hover text.
func beliefTitle(b history.BeliefInterval) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s believed it held %s\n%s – %s (%s)\nended: %s",
		b.Holder, grantLabel(grant{b.Resource, b.Token}), formatTime(b.Start), formatTime(b.End), b.End.Sub(b.Start), b.Reason)
	if b.LastAct >= 0 {
		fmt.Fprintf(&sb, "\nlast action under the token: %s", formatTime(b.LastAct))
	}
	return sb.String()
}

// grantLegend lists every grant with its colour and holder, in colour
// order.
func grantLegend(h *history.History, colors grantColors) []grantKey {
	beliefs := slices.Clone(h.Beliefs)
	slices.SortStableFunc(beliefs, compareBeliefs)
	seen := map[grant]bool{}
	var keys []grantKey
	for _, b := range beliefs {
		g := grant{b.Resource, b.Token}
		if !seen[g] {
			seen[g] = true
			keys = append(keys, grantKey{Label: grantLabel(g), Fill: colors.of(g), Holder: b.Holder})
		}
	}
	return keys
}

// timelineLines returns the vertical lines: the start of the heal phase,
// then the violations in time order. Violations at the same pixel share a
// line and a label ("P2 P3"); labels closer than labelGap step down, so
// they do not overwrite each other.
func timelineLines(run Run, h *history.History, scale timeScale) []vline {
	var lines []vline
	if h.HealAt > 0 {
		lines = append(lines, vline{X: scale.x(h.HealAt), Class: "heal", Label: "heal", LabelY: labelTop,
			Title: fmt.Sprintf("heal phase from %s: faults stop; liveness (P4) is checked from here", h.HealAt)})
	}
	violations := slices.Clone(run.Violations)
	slices.SortStableFunc(violations, func(a, b checker.Violation) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Property, b.Property))
	})
	var last *vline
	for _, v := range violations {
		title := fmt.Sprintf("%s violated at %s\n%s", v.Property, formatTime(v.At), v.Detail)
		for _, e := range v.Evidence {
			title += "\n" + e
		}
		x := scale.x(v.At)
		switch {
		case last != nil && x-last.X < 2:
			last.Title += "\n\n" + title
			if !strings.Contains(last.Label, v.Property) {
				last.Label += " " + v.Property
			}
			continue
		case last != nil && x-last.X < labelGap && last.LabelY < labelTop+2*labelStep:
			lines = append(lines, vline{X: x, Class: "violation", Label: v.Property, Title: title, LabelY: last.LabelY + labelStep})
		default:
			lines = append(lines, vline{X: x, Class: "violation", Label: v.Property, Title: title, LabelY: labelTop})
		}
		last = &lines[len(lines)-1]
	}
	return lines
}
