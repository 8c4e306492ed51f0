package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// This file adapts a *sim.Node to lease.Env: the kernel knows nothing about
// leases and package lease does not import the kernel, so the wiring layer
// joins them. The storage and the PRNG of a sim.Node already satisfy
// lease.Storage and lease.Rand.

// nodeClock is a node's monotonic clock with kernel timers.
type nodeClock struct{ n *sim.Node }

func (c nodeClock) Now() time.Duration { return c.n.Now() }

func (c nodeClock) AfterFunc(d time.Duration, f func()) lease.Timer {
	return nodeTimer{n: c.n, id: c.n.SetTimer(d, f)}
}

func (c nodeClock) WallNow() time.Time { return c.n.WallNow() }

type nodeTimer struct {
	n  *sim.Node
	id sim.TimerID
}

func (t nodeTimer) Stop() bool { return t.n.CancelTimer(t.id) }

// nodeTransport sends lease messages over the simulated network and lets the
// recorder see every request and reply as it leaves the node.
type nodeTransport struct {
	n   *sim.Node
	rec *recorder
}

func (t nodeTransport) Send(to lease.Addr, m lease.Message) {
	dst, ok := t.n.World().Lookup(string(to))
	if !ok {
		panic("scenarios: invariant known-address: " + t.n.Name() + " sent to unknown node " + string(to))
	}
	t.rec.sent(t.n, dst, m)
	t.n.Send(dst.ID(), &m)
}

// newEnv builds the lease environment of a node for its current
// incarnation.
func newEnv(n *sim.Node, rec *recorder, obs lease.Observer) lease.Env {
	clock := nodeClock{n: n}
	return lease.Env{
		Self:      lease.Addr(n.Name()),
		Clock:     clock,
		Wall:      clock,
		Net:       nodeTransport{n: n, rec: rec},
		Store:     n.Storage(),
		Rand:      n.Rand(),
		Observer:  obs,
		Failpoint: n.Failpoint,
	}
}

// serve installs node's message handler: every delivered lease message goes
// to the recorder, then to the lease node.
func serve(n *sim.Node, rec *recorder, node lease.Node) {
	w := n.World()
	n.Handle(func(from sim.NodeID, payload any) {
		m := *payload.(*lease.Message)
		src := w.Node(from)
		rec.delivered(src, n, m)
		node.Deliver(lease.Addr(src.Name()), m)
	})
}
