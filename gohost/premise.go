package gohost

import (
	"fmt"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/history"
)

// Premise is something a scenario's story needs to have happened for its
// verdicts to mean anything. A premise that did not hold makes the run
// unknown (checker.Premises), never a pass.
type Premise struct {
	// Name says what should have happened.
	Name string
	// Holds judges the run's history: whether it happened, and the
	// evidence (when it happened, or why it did not).
	Holds func(h *history.History) (bool, string)
}

// evaluate judges every premise on h.
func evaluate(ps []Premise, h *history.History) []history.PremiseRecord {
	out := make([]history.PremiseRecord, len(ps))
	for i, p := range ps {
		held, detail := p.Holds(h)
		out[i] = history.PremiseRecord{Name: p.Name, Held: held, Detail: detail}
	}
	return out
}

// FaultWhileBelieving holds when a fault of one of kinds (history fault
// kinds: "pause", "partition", "isolate", "crash", "failpoint-hit", …)
// touched a node while that node believed it held a resource. With no
// nodes, any believing node counts. A partition touches the nodes of
// every group it cut.
func FaultWhileBelieving(what string, kinds []string, nodes ...string) Premise {
	return Premise{Name: what, Holds: func(h *history.History) (bool, string) {
		for _, w := range h.Faults {
			if !slices.Contains(kinds, w.Kind) {
				continue
			}
			for _, b := range h.Beliefs {
				if len(nodes) > 0 && !slices.Contains(nodes, b.Holder) {
					continue
				}
				if touches(w, b.Holder) && b.Start <= w.Start && w.Start < b.End {
					return true, fmt.Sprintf("%s of %s at %v while it believed it held %s (token %d)", w.Kind, b.Holder,
						w.Start, b.Resource, b.Token)
				}
			}
		}
		return false, fmt.Sprintf("no %s touched a believing holder", strings.Join(kinds, " or "))
	}}
}

// touches reports whether fault window w involves node.
func touches(w history.FaultWindow, node string) bool {
	if slices.Contains(w.Nodes, node) {
		return true
	}
	switch w.Kind {
	case history.FaultPartition, history.FaultSplit, history.FaultBridge:
		// Detail names the groups: "[a b] | [c]".
		for _, g := range strings.Split(w.Detail, "|") {
			if slices.Contains(strings.Fields(strings.Trim(strings.TrimSpace(g), "[]")), node) {
				return true
			}
		}
	}
	return false
}

// ChangedHands holds when at least two lives held a resource in turn: the
// lease moved from one holder to another.
func ChangedHands() Premise {
	return Premise{Name: "the lease changed hands", Holds: func(h *history.History) (bool, string) {
		first := map[string]history.BeliefInterval{}
		for _, b := range h.Beliefs {
			f, seen := first[b.Resource]
			if !seen {
				first[b.Resource] = b
				continue
			}
			if f.Holder != b.Holder || f.Incarnation != b.Incarnation {
				return true, fmt.Sprintf("%s held by %s then by %s at %v", b.Resource, f.Holder, b.Holder, b.Start)
			}
		}
		return false, "no resource was held by two lives"
	}}
}

// FailpointHit holds when the failpoint name fired on node.
func FailpointHit(node, name string) Premise {
	return Premise{Name: fmt.Sprintf("failpoint %q hit on %s", name, node), Holds: func(h *history.History) (bool, string) {
		for _, w := range h.Faults {
			if w.Kind == history.FaultFailpointHit && slices.Contains(w.Nodes, node) && strings.HasPrefix(w.Detail, fmt.Sprintf("%q", name)) {
				return true, fmt.Sprintf("at %v", w.Start)
			}
		}
		return false, "armed but never reached, or never armed"
	}}
}
