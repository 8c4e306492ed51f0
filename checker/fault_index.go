package checker

import (
	"cmp"
	"slices"
	"sort"

	"github.com/leasesim/leasesim/history"
)

// nodeWindows indexes a history's fault windows of one kind by the node
// they acted on, so that asking whether a node was in one at an instant is
// a binary search, not a scan of every fault: a long churny run has
// thousands of windows and thousands of beliefs to ask about.
type nodeWindows map[string]windowRun

// windowRun is one node's windows, sorted by start; ends[i] is the latest
// end of windows 0..i.
type windowRun struct {
	starts, ends []history.Time
}

// indexWindows indexes h's fault windows of kind by node.
func indexWindows(h *history.History, kind string) nodeWindows {
	type span struct{ start, end history.Time }
	spans := make(map[string][]span)
	for i := range h.Faults {
		if w := &h.Faults[i]; w.Kind == kind {
			spans[w.Node()] = append(spans[w.Node()], span{w.Start, w.End})
		}
	}
	x := make(nodeWindows, len(spans))
	for node, ss := range spans {
		slices.SortFunc(ss, func(a, b span) int { return cmp.Compare(a.start, b.start) })
		r := windowRun{starts: make([]history.Time, len(ss)), ends: make([]history.Time, len(ss))}
		for i, s := range ss {
			r.starts[i], r.ends[i] = s.start, s.end
			if i > 0 {
				r.ends[i] = max(r.ends[i], r.ends[i-1])
			}
		}
		x[node] = r
	}
	return x
}

// at reports whether node was in a window at t: Start <= t <= End.
func (x nodeWindows) at(node string, t history.Time) bool {
	r := x[node]
	k := sort.Search(len(r.starts), func(i int) bool { return r.starts[i] > t }) - 1
	return k >= 0 && r.ends[k] >= t
}
