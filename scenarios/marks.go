package scenarios

import (
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// What a recorder mark says, in the trace's RecMark records. Messages are
// covered by their own digests; marks cover what the checkers read that
// does not cross the network: the holders' lease events (beliefs) and the
// actions and units of work done under a token.
const (
	markLeaseEvent uint64 = 1 << 8 // | lease.EventKind
	markAct        uint64 = 2 << 8
	markUnit       uint64 = 3 << 8
)

// markEvent folds a holder's lease event into the trace hash.
func markEvent(w *sim.World, n *sim.Node, ev lease.Event) {
	w.Mark(n.ID(), markLeaseEvent|uint64(ev.Kind), sim.Digest(sim.DigestString(ev.Resource), ev.Token,
		uint64(ev.Local), uint64(ev.Deadline), uint64(ev.Duration), sim.DigestString(ev.Err)))
}

// markAction folds an action under a token into the trace hash.
func markAction(w *sim.World, n *sim.Node, resource string, token uint64) {
	w.Mark(n.ID(), markAct, sim.Digest(sim.DigestString(resource), token))
}

// markUnitDone folds a completed unit of work into the trace hash.
func markUnitDone(w *sim.World, n *sim.Node, task string, index int, token uint64) {
	w.Mark(n.ID(), markUnit, sim.Digest(sim.DigestString(task), uint64(index), token))
}
