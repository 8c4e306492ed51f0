package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// Premise is what a scenario's story needs to have happened for its
// verdicts to mean anything: the armed failpoint was hit, the partition cut
// a holder off while it held the lease, the pause outlasted the TTL. It is
// checked on the outcome of every run. A run whose premise did not happen
// is reported unknown with the reason (property "premise"), never ok: a
// fencing check that passed because the stale write was never attempted
// proves nothing.
type Premise struct {
	// Name says what must have happened, as a sentence.
	Name string
	// held reports whether it happened, and the evidence either way.
	held func(v premiseView) (bool, string)
}

// premiseView is what premises read: the finished history, the kernel's
// fault log and the run's TTL.
type premiseView struct {
	h   *history.History
	log []sim.FaultRecord
	ttl time.Duration
}

// evaluatePremises checks each premise on a finished run.
func evaluatePremises(ps []Premise, v premiseView) []history.PremiseRecord {
	if len(ps) == 0 {
		return nil // as a history file without premise records reads
	}
	out := make([]history.PremiseRecord, 0, len(ps))
	for _, p := range ps {
		held, detail := p.held(v)
		out = append(out, history.PremiseRecord{Name: p.Name, Held: held, Detail: detail})
	}
	return out
}

// FailpointHit: the failpoint name, armed on node (on any node if node is
// empty), fired there.
func FailpointHit(node, name string) Premise {
	where := node
	if where == "" {
		where = "a node"
	}
	return Premise{
		Name: fmt.Sprintf("the failpoint %s armed on %s was hit", name, where),
		held: func(v premiseView) (bool, string) {
			for _, f := range v.log {
				if f.Kind == sim.FaultFailpointHit && (node == "" || f.Node == node) && strings.HasPrefix(f.Detail, name+":") {
					return true, fmt.Sprintf("hit on %s at %v", f.Node, time.Duration(f.At))
				}
			}
			return false, fmt.Sprintf("%s never reached %s while it was armed: does the implementation call "+
				"Env.Failpoint(%q)?", where, name, name)
		},
	}
}

// FaultWhileHolding: a fault of one of kinds (any kind if none) acted on
// one of nodes (any node if none) while that node believed it held a
// lease, and, when atLeast > 0, lasted at least that long. Partitions count
// for the node isolated or the peer cut off.
func FaultWhileHolding(what string, atLeast time.Duration, nodes []string, kinds ...sim.FaultKind) Premise {
	return Premise{
		Name: what,
		held: func(v premiseView) (bool, string) {
			longest := time.Duration(-1)
			for _, w := range v.h.Faults {
				if len(kinds) > 0 && !kindIn(kinds, w.Kind) {
					continue
				}
				for _, node := range []string{w.Node(), w.Peer()} {
					if node == "" || len(nodes) > 0 && !slices.Contains(nodes, node) || !believedDuring(v.h, node, w.Start, w.End) {
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

// ChangedHands: some resource was believed held by two different holders
// over the run: the lease moved.
func ChangedHands() Premise {
	return Premise{
		Name: "a lease changed hands",
		held: func(v premiseView) (bool, string) {
			first := make(map[string]string) // resource -> first holder; looked up, never iterated
			for _, b := range v.h.Beliefs {
				f, seen := first[b.Resource]
				switch {
				case !seen:
					first[b.Resource] = b.Holder
				case f != b.Holder:
					return true, fmt.Sprintf("%s passed from %s to %s", b.Resource, f, b.Holder)
				}
			}
			return false, "every resource stayed with the holder that first held it"
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
		held: func(v premiseView) (bool, string) {
			rhoPPB := v.h.Lease.RhoPPB
			switch {
			case v.h.MaxDriftPPB == 0:
				return false, "no clock drifted"
			case beyond && v.h.MaxDriftPPB <= rhoPPB:
				return false, fmt.Sprintf("the largest drift, %d ppb, stayed within rho (%d ppb)", v.h.MaxDriftPPB, rhoPPB)
			}
			return true, fmt.Sprintf("largest drift %d ppb (rho %d ppb)", v.h.MaxDriftPPB, rhoPPB)
		},
	}
}

// Sighted: a discovery reader saw a registration.
func Sighted() Premise {
	return Premise{
		Name: "a reader sighted a registration",
		held: func(v premiseView) (bool, string) {
			if len(v.h.Sightings) == 0 {
				return false, "no reader ever listed a registration"
			}
			s := v.h.Sightings[0]
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

// FaultWhileLeaseLive: a fault of one of kinds (any kind if none) began on
// one of nodes (any node if none) while some holder believed it held a
// lease: a lease store crashing with a live lease in its memory, a clock
// stepped under a live lease.
func FaultWhileLeaseLive(what string, kinds []sim.FaultKind, nodes ...string) Premise {
	return Premise{
		Name: what,
		held: func(v premiseView) (bool, string) {
			for _, w := range v.h.Faults {
				if len(kinds) > 0 && !kindIn(kinds, w.Kind) || len(nodes) > 0 && !slices.Contains(nodes, w.Node()) {
					continue
				}
				for _, b := range v.h.Beliefs {
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

// kindIn reports whether a fault window's kind, by name, is one of kinds.
func kindIn(kinds []sim.FaultKind, name string) bool {
	return slices.ContainsFunc(kinds, func(k sim.FaultKind) bool { return k.String() == name })
}

// AnyOf holds when at least one of ps holds: stories that may happen in
// more than one way (a worker that froze past its TTL or crashed outright,
// mid-task, hands its task over either way).
func AnyOf(what string, ps ...Premise) Premise {
	return Premise{
		Name: what,
		held: func(v premiseView) (bool, string) {
			var why []string
			for _, p := range ps {
				held, detail := p.held(v)
				if held {
					return true, detail
				}
				why = append(why, p.Name+": "+detail)
			}
			return false, strings.Join(why, "; ")
		},
	}
}
