package faults

import (
	"fmt"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/sim"
)

// RoleLeader, as an event's node, names whichever node leads a replicated
// lease store at the instant the fault acts: "pause the current leader".
// The host that runs the schedule resolves it (Roles); the kernel knows no
// roles.
const RoleLeader = "@leader"

// roleNames are the roles this package knows.
var roleNames = []string{RoleLeader}

// IsRole reports whether name names a role (it begins with "@") rather
// than a node.
func IsRole(name string) bool { return strings.HasPrefix(name, "@") }

// roleKinds are the kinds whose node may be a role: faults that act on a
// node at one instant. A crash is not among them (its restart could not
// name the same node), nor are the ends of faults.
var roleKinds = []Kind{KindPause, KindIsolate, KindDrift, KindStep, KindFailpoint}

// Roles resolves role targets when their faults act. Validate accepts a
// role as a node only where the host lists it among the nodes, which it
// does when it can resolve it.
type Roles struct {
	// Holder names the node that holds role now; ok is false when no node
	// does (no member leads at that instant).
	Holder func(role string) (node string, ok bool)
	// Unapplied, when set, is told of each event that did not act because
	// no node held its role: such an event is no fault that happened (the
	// kernel's fault log does not show it).
	Unapplied func(index int, e Event)
}

// Names returns the roles r resolves: none without a Holder.
func (r Roles) Names() []string {
	if r.Holder == nil {
		return nil
	}
	return slices.Clone(roleNames)
}

// checkRole checks a role used as field of an event of kind k; nodes
// lists what the host resolves.
func checkRole(field, name string, k Kind, known map[string]bool) *ValidationError {
	switch {
	case !slices.Contains(roleNames, name):
		return bad(field, "unknown role %q (want one of %s)", name, strings.Join(roleNames, ", "))
	case field != "node" || !slices.Contains(roleKinds, k):
		return bad(field, "the role %s may name only the node of a %s event", name, joinKinds(roleKinds))
	case !known[name]:
		return bad(field, "the role %s is not resolved here: the host runs no store whose leader it can name", name)
	}
	return nil
}

func joinKinds(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// roleAction returns the call that resolves e's role when it acts and
// applies e to the node that holds it, or tells r.Unapplied.
func (e Event) roleAction(w *sim.World, index int, r Roles) func() {
	return func() {
		name, ok := r.Holder(e.Node)
		if ok {
			if _, found := w.Lookup(name); !found {
				panic(fmt.Sprintf("faults: invariant role-holder: role %s resolved to %q, no node of the world", e.Node, name))
			}
			resolved := e
			resolved.Node = name
			resolved.action(w, index)()
			return
		}
		if r.Unapplied != nil {
			r.Unapplied(index, e)
		}
	}
}
