package reports

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// nodesOf returns every node that appears in a history or a run's fault log, in lane order: the
// grantor, the fenced store, then holders, workers, registrants and readers
// by number ("h2" before "h10"), then any other name alphabetically. The
// timeline and the Perfetto export both use this order, so a node sits in
// the same place in each.
func nodesOf(h *history.History, faults []Fault) []string {
	seen := map[string]bool{}
	var names []string
	add := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	add(h.Grantor)
	add(h.Resource)
	for _, o := range h.AllOps() {
		add(o.Client)
		add(o.Server)
	}
	for _, b := range h.Beliefs {
		add(b.Holder)
	}
	for _, u := range h.Units {
		add(u.Worker)
	}
	for _, e := range h.Effects {
		add(e.From)
	}
	for _, s := range h.Sightings {
		add(s.Reader)
	}
	for _, f := range faults {
		add(f.Node)
		add(f.Peer)
	}
	slices.SortFunc(names, compareNodes)
	return names
}

// roleRank orders node roles on the timeline; unknown roles sort last.
var roleRank = map[string]int{
	scenarios.GrantorNode: 0, scenarios.StoreNode: 1, "h": 2, "w": 3, "s": 4, "r": 5,
}

// compareNodes orders node names by role, then by number, then by name.
func compareNodes(a, b string) int {
	ra, na := nodeRole(a)
	rb, nb := nodeRole(b)
	return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(na, nb), strings.Compare(a, b))
}

// nodeRole splits a node name such as "h12" into its role rank and number.
func nodeRole(name string) (rank, num int) {
	if r, ok := roleRank[name]; ok {
		return r, 0
	}
	prefix := strings.TrimRight(name, "0123456789")
	n, err := strconv.Atoi(name[len(prefix):])
	if r, ok := roleRank[prefix]; ok && err == nil {
		return r, n
	}
	return len(roleRank), 0
}

// span is an interval of true time that needs a row of its own where it
// overlaps another: a belief, an operation, a fault window.
type span struct{ start, end history.Time }

// packRows assigns each span the lowest row in which it overlaps no earlier
// span, in the order given (callers pass spans sorted by start); spans that
// only touch share a row. It returns the row of each span and the number of
// rows used, at least 1.
func packRows(spans []span) (rows []int, n int) {
	var ends []history.Time // the end of the last span in each row
	rows = make([]int, len(spans))
	for i, s := range spans {
		row := slices.IndexFunc(ends, func(end history.Time) bool { return end <= s.start })
		if row < 0 {
			row = len(ends)
			ends = append(ends, 0)
		}
		ends[row] = max(s.end, s.start)
		rows[i] = row
	}
	return rows, max(1, len(ends))
}
