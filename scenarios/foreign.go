package scenarios

import (
	"fmt"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// This file is the door for an implementation that keeps its own messages
// (lease.AnyNode, lease.AnyTransport): the kernel carries any payload, so
// the wiring only has to send it and hand it to the node that takes it.

var _ lease.AnyTransport = nodeTransport{}

// SendAny sends a message of the implementation's own protocol over the
// simulated network. The message is not copied: the sender gave it up.
func (t nodeTransport) SendAny(to lease.Addr, m any) {
	switch lm := m.(type) { // leasesim's protocol, sent the other way
	case lease.Message:
		t.Send(to, lm)
		return
	case *lease.Message:
		t.Send(to, *lm)
		return
	}
	injectedHarnessFault()
	dst, ok := t.n.World().Lookup(string(to))
	if !ok {
		panic("scenarios: invariant known-address: " + t.n.Name() + " sent to unknown node " + string(to))
	}
	t.rec.sentAny(t.n, dst, m)
	t.n.Send(dst.ID(), m)
	afterSend(t.n, m)
}

// deliverAny hands a message that is not leasesim's to node, which must be
// a lease.AnyNode: an implementation that sends its own messages to a node
// that cannot take them has a bug, and the run says so.
func deliverAny(rec *recorder, src, dst *sim.Node, node any, payload any) {
	rec.deliveredAny(dst, payload)
	from := lease.Addr(src.Name())
	an, ok := node.(lease.AnyNode)
	if !ok {
		implCall(func() { panic(notAnyNode(payload, from)) })
		return
	}
	an.DeliverAny(from, payload)
}

// notAnyNode says that a message of an implementation's own protocol
// reached a node that cannot take it.
func notAnyNode(m any, from lease.Addr) string {
	return fmt.Sprintf("a %T from %s reached a node that takes only leasesim's messages (implement lease.AnyNode)", m, from)
}

// DeliverAny forwards a message of the implementation's own protocol to
// the grantor behind an implementation boundary.
func (x guardedGrantor) DeliverAny(from lease.Addr, m any) { guardedDeliverAny(x.g, from, m) }

// DeliverAny forwards a message of the implementation's own protocol to
// the holder behind an implementation boundary.
func (x guardedHolder) DeliverAny(from lease.Addr, m any) { guardedDeliverAny(x.h, from, m) }

// DeliverAny forwards a message of the implementation's own protocol to
// the fenced store behind an implementation boundary.
func (x guardedResource) DeliverAny(from lease.Addr, m any) { guardedDeliverAny(x.r, from, m) }

func guardedDeliverAny(node any, from lease.Addr, m any) {
	an, ok := node.(lease.AnyNode)
	if !ok {
		panic(notAnyNode(m, from))
	}
	an.DeliverAny(from, m)
}
