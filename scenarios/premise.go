package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
)

// Premise is what a scenario's story needs to have happened for its
// verdicts to mean anything: the armed failpoint was hit, the partition cut
// a holder off while it held the lease, the pause outlasted the TTL. It is
// a pure function of the run's history, so it means the same on every host:
// the event host, goroutine code and real processes record the same
// records (fault windows, beliefs, operations) and every premise reads only
// them. A run whose premise did not happen is reported unknown with the
// reason (property "premise"), never ok: a fencing check that passed
// because the stale write was never attempted proves nothing.
type Premise struct {
	// Name says what must have happened, as a sentence.
	Name string
	// Holds judges the finished history: whether it happened, and the
	// evidence either way (when it happened, or why it did not).
	Holds func(h *history.History) (bool, string)
}

// EvaluatePremises judges every premise on h, in order, as the records
// checker.Premises reads.
func EvaluatePremises(ps []Premise, h *history.History) []history.PremiseRecord {
	if len(ps) == 0 {
		return nil // as a history file without premise records reads
	}
	out := make([]history.PremiseRecord, 0, len(ps))
	for _, p := range ps {
		held, detail := p.Holds(h)
		out = append(out, history.PremiseRecord{Name: p.Name, Held: held, Detail: detail})
	}
	return out
}

// FailpointHit: the failpoint name, armed on node (on any node if node is
// empty), fired there. Every host records a hit as a failpoint-hit fault
// window naming the failpoint (history.FailpointDetail).
func FailpointHit(node, name string) Premise {
	where := node
	if where == "" {
		where = "a node"
	}
	return Premise{
		Name: fmt.Sprintf("the failpoint %s armed on %s was hit", name, where),
		Holds: func(h *history.History) (bool, string) {
			for _, w := range h.Faults {
				if w.Kind == history.FaultFailpointHit && (node == "" || w.Node() == node) && w.Failpoint() == name {
					return true, fmt.Sprintf("hit on %s at %v", w.Node(), time.Duration(w.Start))
				}
			}
			return false, fmt.Sprintf("%s never reached %s while it was armed: does the implementation "+
				"reach the failpoint %q?", where, name, name)
		},
	}
}

// FaultWhileHolding: a fault of one of kinds (history fault kinds:
// history.FaultPause, ...; any kind if none) involved one of nodes (any node
// if none; history.FaultWindow.Touches: a partition involves every member
// of its groups) while that node believed it held a lease, and, when
// atLeast > 0, lasted at least that long.
func FaultWhileHolding(what string, atLeast time.Duration, nodes []string, kinds ...string) Premise {
	return Premise{
		Name: what,
		Holds: func(h *history.History) (bool, string) {
			longest := time.Duration(-1)
			for _, w := range h.Faults {
				if len(kinds) > 0 && !slices.Contains(kinds, w.Kind) {
					continue
				}
				for _, node := range involved(h, &w) {
					if len(nodes) > 0 && !slices.Contains(nodes, node) || !believedDuring(h, node, w.Start, w.End) {
						continue
					}
					d := time.Duration(w.End - w.Start)
					if d >= atLeast {
						return true, fmt.Sprintf("%s on %s from %v to %v, while it held a lease", w.Kind, node,
							time.Duration(w.Start), time.Duration(w.End))
					}
					longest = max(longest, d)
				}
			}
			if longest >= 0 {
				return false, fmt.Sprintf("the longest such fault on a holder lasted %v, less than %v", longest, atLeast)
			}
			return false, "no such fault acted on a node while it held a lease"
		},
	}
}

// involved returns the holders a fault window touched, in the order the
// history first names them.
func involved(h *history.History, w *history.FaultWindow) []string {
	var out []string
	for _, b := range h.Beliefs {
		if !slices.Contains(out, b.Holder) && w.Touches(b.Holder) {
			out = append(out, b.Holder)
		}
	}
	return out
}

// ChangedHands: some resource was believed held by two lives (two holders,
// or one holder's two incarnations) over the run: the lease moved.
func ChangedHands() Premise {
	return Premise{
		Name: "a lease changed hands",
		Holds: func(h *history.History) (bool, string) {
			first := make(map[string]history.BeliefInterval) // resource -> first belief; looked up, never iterated
			for _, b := range h.Beliefs {
				f, seen := first[b.Resource]
				switch {
				case !seen:
					first[b.Resource] = b
				case f.Holder != b.Holder || f.Incarnation != b.Incarnation:
					return true, fmt.Sprintf("%s passed from %s to %s at %v", b.Resource, f.Holder, b.Holder,
						time.Duration(b.Start))
				}
			}
			return false, "every resource stayed with the life that first held it"
		},
	}
}

// DriftApplied: some clock drifted, beyond rho if beyond is set.
func DriftApplied(beyond bool) Premise {
	name := "a clock drifted within the bound"
	if beyond {
		name = "a clock drifted beyond the bound rho"
	}
	return Premise{
		Name: name,
		Holds: func(h *history.History) (bool, string) {
			rhoPPB := h.Lease.RhoPPB
			switch {
			case h.MaxDriftPPB == 0:
				return false, "no clock drifted"
			case beyond && h.MaxDriftPPB <= rhoPPB:
				return false, fmt.Sprintf("the largest drift, %d ppb, stayed within rho (%d ppb)", h.MaxDriftPPB, rhoPPB)
			}
			return true, fmt.Sprintf("largest drift %d ppb (rho %d ppb)", h.MaxDriftPPB, rhoPPB)
		},
	}
}

// Sighted: a discovery reader saw a registration.
func Sighted() Premise {
	return Premise{
		Name: "a reader sighted a registration",
		Holds: func(h *history.History) (bool, string) {
			if len(h.Sightings) == 0 {
				return false, "no reader ever listed a registration"
			}
			s := h.Sightings[0]
			return true, fmt.Sprintf("%s saw %s at %v", s.Reader, s.Key, time.Duration(s.At))
		},
	}
}

// believedDuring reports whether node believed it held some lease at some
// point of [from, to].
func believedDuring(h *history.History, node string, from, to history.Time) bool {
	for _, b := range h.Beliefs {
		if b.Holder == node && b.Start <= to && (b.End >= from || b.End == history.Never) {
			return true
		}
	}
	return false
}

// FaultWhileLeaseLive: a fault of one of kinds (history fault kinds; any
// kind if none) began on one of nodes (any node if none) while some holder
// believed it held a lease: a lease store crashing with a live lease in its
// memory, a clock stepped under a live lease.
func FaultWhileLeaseLive(what string, kinds []string, nodes ...string) Premise {
	return Premise{
		Name: what,
		Holds: func(h *history.History) (bool, string) {
			for _, w := range h.Faults {
				if len(kinds) > 0 && !slices.Contains(kinds, w.Kind) || len(nodes) > 0 && !slices.Contains(nodes, w.Node()) {
					continue
				}
				for _, b := range h.Beliefs {
					if b.Start <= w.Start && (b.End >= w.Start || b.End == history.Never) {
						return true, fmt.Sprintf("%s on %s at %v while %s held %s", w.Kind, w.Node(),
							time.Duration(w.Start), b.Holder, b.Resource)
					}
				}
			}
			return false, "no such fault began while a holder believed it held a lease"
		},
	}
}

// AnyOf holds when at least one of ps holds: stories that may happen in
// more than one way (a worker that froze past its TTL or crashed outright,
// mid-task, hands its task over either way).
func AnyOf(what string, ps ...Premise) Premise {
	return Premise{
		Name: what,
		Holds: func(h *history.History) (bool, string) {
			var why []string
			for _, p := range ps {
				held, detail := p.Holds(h)
				if held {
					return true, detail
				}
				why = append(why, p.Name+": "+detail)
			}
			return false, strings.Join(why, "; ")
		},
	}
}
