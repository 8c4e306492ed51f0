package scenarios

import (
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// Event-triggered faults. The wiring reaches these failpoints on a node's
// message boundary, for any implementation, so a schedule or a nemesis can
// pause or crash a node at a moment defined by what it does rather than
// by the clock: the rare interleavings are reached on purpose. They are
// ordinary failpoints (faults.KindFailpoint), armed at a time and fired
// once, so replay, shrinking and the FailpointHit premise work unchanged.
const (
	// TriggerOnReply is reached when a reply (from the lease store or the
	// fenced store) is delivered to a node, before the node handles it: a
	// pause there delays the handling, a crash loses the reply after the
	// server acted.
	TriggerOnReply = "on-reply"
	// TriggerAfterRequest is reached right after a node sent a request
	// other than a write (to the lease store, or a read or an effect to the
	// fenced store): a pause there freezes it with the request in flight.
	TriggerAfterRequest = "after-request"
	// TriggerAfterWrite is reached right after a node sent a write to the
	// fenced store.
	TriggerAfterWrite = "after-write"
)

// Triggers are the event-triggered failpoints, which every implementation
// reaches: through leasesim's messages (the fenced store's, at least), and
// through its own when they implement history.Described (on-reply and
// after-request for its lease store's replies and requests).
func Triggers() []string { return []string{TriggerOnReply, TriggerAfterRequest, TriggerAfterWrite} }

// onReplyArmed reports whether delivering payload to n reaches an armed
// TriggerOnReply. It records nothing.
func onReplyArmed(n *sim.Node, payload any) bool {
	return n.Armed(TriggerOnReply) && isReply(payload)
}

// afterSend reaches the failpoint that sending payload triggers, if it is
// armed on n, once the step that sent it has ended. Unarmed, it records
// nothing.
func afterSend(n *sim.Node, payload any) {
	if !n.Armed(TriggerAfterRequest) && !n.Armed(TriggerAfterWrite) {
		return
	}
	if name := sentTrigger(payload); name != "" && n.Armed(name) {
		// The node is in the middle of a step that may send more: it
		// reaches the failpoint right after that step, at the same instant.
		w, life := n.World(), n.Incarnation()
		w.At(w.Now(), func() {
			if n.State() == sim.Up && n.Incarnation() == life && n.Armed(name) {
				n.Failpoint(name, func() {})
			}
		})
	}
}

func isReply(payload any) bool {
	switch m := payload.(type) {
	case *simMessage:
		return !m.Kind.IsRequest()
	case history.Described:
		return describe(m).Reply
	}
	return false
}

func sentTrigger(payload any) string {
	switch m := payload.(type) {
	case *simMessage:
		switch {
		case m.Kind == lease.KindWrite:
			return TriggerAfterWrite
		case m.Kind.IsRequest():
			return TriggerAfterRequest
		}
	case history.Described:
		if !describe(m).Reply {
			return TriggerAfterRequest
		}
	}
	return ""
}
