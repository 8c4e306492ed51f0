package reports

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// fence is an interval in which the fenced store's highest accepted token
// on a resource was Token: from the first write it accepted under Token to
// the first it accepted under a higher one, or to the last write it
// accepted on the resource. A write under a lower token in that interval
// is fenced.
type fence struct {
	Resource   string
	Token      uint64
	Start, End history.Time
}

// fences returns the store's fences, by resource (sorted), then in time.
func fences(h *history.History) []fence {
	var accepted []history.Operation
	for _, o := range h.AllOps() {
		if o.Server == h.Resource && o.Input.Kind == string(model.OpWrite) && o.Output.Err == "" {
			accepted = append(accepted, o)
		}
	}
	slices.SortStableFunc(accepted, func(a, b history.Operation) int {
		return cmp.Or(cmp.Compare(a.Input.Resource, b.Input.Resource), cmp.Compare(a.Processed, b.Processed))
	})
	var out []fence
	for _, o := range accepted {
		last := len(out) - 1
		if last >= 0 && out[last].Resource == o.Input.Resource {
			out[last].End = o.Processed
			if o.Input.Token <= out[last].Token {
				continue // the same fence (a lower token here is a P2 violation, which P2 reports)
			}
		}
		out = append(out, fence{Resource: o.Input.Resource, Token: o.Input.Token, Start: o.Processed, End: o.Processed})
	}
	return out
}

// newFenceLane lays out the fenced store's lane: one row per resource,
// with a bar per fence in its grant's colour, so a fenced write on a
// writer's lane lines up with the newer token the store had accepted.
func newFenceLane(name string, y float64, h *history.History, scale timeScale, colors grantColors) lane {
	fs := fences(h)
	// A resource keeps one row, so its fences line up: pack each resource's
	// whole span of writes.
	var resources []string
	var spans []span
	for _, f := range fs {
		if i := len(spans) - 1; i >= 0 && resources[i] == f.Resource {
			spans[i].end = f.End
			continue
		}
		resources = append(resources, f.Resource)
		spans = append(spans, span{f.Start, f.End})
	}
	order := make([]int, len(spans)) // resource indexes by start
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(spans[a].start, spans[b].start) })
	sorted := make([]span, len(spans))
	for i, j := range order {
		sorted[i] = spans[j]
	}
	packed, n := packRows(sorted)
	rowOf := map[string]int{}
	for i, j := range order {
		rowOf[resources[j]] = packed[i]
	}
	ln := emptyLane(name, y, n)
	for _, f := range fs {
		g := grant{f.Resource, f.Token}
		x, w := scale.x(f.Start), scale.width(f.Start, f.End)
		ln.Bars = append(ln.Bars, bar{
			X: x, W: w, Y: rowY(y, rowOf[f.Resource]) + barHeight/4, H: barHeight / 2,
			Class: "fence", Fill: colors.of(g),
			Title: fmt.Sprintf("%s accepts writes on %s under token %d or higher\nfrom %s (its first write under #%d) to %s",
				name, f.Resource, f.Token, f.Start, f.Token, f.End),
		})
	}
	return ln
}
