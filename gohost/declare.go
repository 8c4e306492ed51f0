package gohost

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
)

// Declare records, on a failure detector's node, its verdict about member
// now: declared dead (suspected) or alive again, with the grace period it
// applied (history.Declaration; P7 and P8 judge them when the history's
// lease configuration declares a detection bound). The verdict is in the
// trace, so it is part of the run's hash. A dead life records nothing.
func (n *Node) Declare(member string, dead bool, grace time.Duration) {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if n.dead {
		return
	}
	what := "alive"
	if dead {
		what = "dead"
	}
	h.note(Event{Kind: "declare", Node: n.Name(), Peer: member, Detail: fmt.Sprintf("%s grace %v", what, grace)}, nil)
	h.rec.declarations = append(h.rec.declarations, history.Declaration{Detector: n.Name(), Member: member, Dead: dead,
		At: history.Time(h.now()), Grace: grace})
}

// sortedDeclarations returns ds in an order that does not depend on which
// goroutine recorded first: by time, detector, member, verdict.
func sortedDeclarations(ds []history.Declaration) []history.Declaration {
	out := slices.Clone(ds)
	slices.SortFunc(out, func(a, b history.Declaration) int {
		return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Detector, b.Detector), cmp.Compare(a.Member, b.Member),
			cmp.Compare(boolInt(a.Dead), boolInt(b.Dead)))
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
