package gohost

import (
	"fmt"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/netcore"
)

// Event-triggered failpoints on the simulated network. A schedule arms
// them like any failpoint (faults.KindFailpoint naming the node and the
// trigger), and the host reaches them when it delivers a reply, so a
// schedule can hit the moment after a server acted and before its client
// heard of it. A reply is a data segment from the accepting end of a
// connection to the dialling end, once the dialling end's bytes have
// reached the accepting end's code (a request was received). The host
// decides at delivery, on its own goroutine, so which reply is "the next"
// does not depend on goroutine scheduling. Each arming fires once; the
// node's code must not call Node.Failpoint with these names.
const (
	// TriggerOnReply, armed on a node, is reached when a reply is about to
	// be delivered to it, as the event host's on-reply: a crash there
	// crashes the node and the reply is lost after the server acted; a
	// pause freezes the node's I/O with the reply held for the duration.
	TriggerOnReply = "on-reply"
	// TriggerReplyLost, armed on a server node, is reached when its next
	// reply is about to be delivered. Its action acts on that reply, not
	// on the node: crash loses the reply (its connection is reset both
	// ways, as a lost segment does: the server's Write had succeeded, the
	// client reads a reset after what came before); pause holds the
	// connection's replies back for the duration, then they travel, late.
	// The server keeps running either way.
	TriggerReplyLost = "reply-lost"
)

// Triggers returns the goroutine host's event-triggered failpoints, for a
// nemesis's list of failpoints.
func Triggers() []string { return []string{TriggerOnReply, TriggerReplyLost} }

// replyLost is the trace's reason for a reply a trigger lost.
const replyLost = "reply lost after the server acted"

// replyTriggers reaches the reply triggers armed for a reply about to be
// delivered, the sender's first. Callers hold mu, on the host's goroutine.
func (h *host) replyTriggers(r netcore.Reply) netcore.Verdict {
	from, to := h.byName[r.From.Name()], h.byName[r.To.Name()]
	if from.cur != nil && r.FromLife == from.cur.nl { // the current life's reply, not an earlier one's
		if ev, ok := h.reach(from, TriggerReplyLost); ok {
			if ev.Action == faults.ActionCrash {
				return netcore.Verdict{Do: netcore.Lose, Why: replyLost}
			}
			until := h.now() + ev.Duration
			h.later(until, from.spec.Name, h.net.Release)
			return netcore.Verdict{Do: netcore.Stall, HoldUntil: until}
		}
	}
	if to.cur == nil || r.ToLife != to.cur.nl || r.ToClosed {
		return netcore.Verdict{} // for an earlier life, or a closed connection: nobody receives it
	}
	if ev, ok := h.reach(to, TriggerOnReply); ok {
		if ev.Action == faults.ActionCrash {
			h.crash(to, "failpoint "+TriggerOnReply)
			return netcore.Verdict{} // delivered to a dead endpoint: answered with a reset
		}
		h.pause(to, ev.Duration, "failpoint "+TriggerOnReply)
		return netcore.Verdict{Do: netcore.Stall}
	}
	return netcore.Verdict{}
}

// reach fires the failpoint name armed on ns, if any and ns is up: it is
// disarmed and the hit is traced. Callers hold mu, on the host's goroutine.
func (h *host) reach(ns *nodeState, name string) (faults.Event, bool) {
	ev, ok := ns.armed[name]
	if !ok || ns.cur == nil {
		return ev, false
	}
	delete(ns.armed, name)
	detail := fmt.Sprintf("%q %s", name, ev.Action)
	h.event(Event{Kind: "failpoint-hit", Node: ns.spec.Name, Detail: detail})
	h.openWindow(history.FaultFailpointHit, ns.spec.Name, history.FailpointDetail(name, string(ev.Action)), true)
	return ev, true
}
