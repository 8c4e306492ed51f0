package k8slease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
)

// testConfig is the catalogue's usual config: a 5 s TTL, so LeaseDuration
// 5 s, RenewDeadline 3.33 s, RetryPeriod 667 ms, request timeout 833 ms.
func testConfig() lease.Config {
	return lease.Config{TTL: 5 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond}.WithDefaults()
}

// envelope is a message in flight on the test network.
type envelope struct {
	from, to lease.Addr
	m        any
}

// testNet runs nodes on leasetest's clock and storage, with a network that
// carries this package's messages too: a message sent is delivered at the
// next step, unless drop says otherwise.
type testNet struct {
	t      *testing.T
	w      *leasetest.World
	nodes  map[lease.Addr]lease.Node
	queue  []envelope
	events []lease.Event
	// drop, when set, decides which envelopes are lost.
	drop func(envelope) bool
}

func newTestNet(t *testing.T) *testNet {
	return &testNet{t: t, w: leasetest.NewWorld(), nodes: make(map[lease.Addr]lease.Node)}
}

// port is one node's transport on the test network.
type port struct {
	n    *testNet
	self lease.Addr
}

func (p port) Send(to lease.Addr, m lease.Message) { p.SendAny(to, m) }
func (p port) SendAny(to lease.Addr, m any) {
	p.n.queue = append(p.n.queue, envelope{from: p.self, to: to, m: m})
}

type recorder struct{ n *testNet }

func (r recorder) Observe(ev lease.Event) { r.n.events = append(r.n.events, ev) }

// env returns the environment of node self.
func (n *testNet) env(self lease.Addr) lease.Env {
	env := n.w.Env(self, 1)
	env.Net = port{n: n, self: self}
	env.Observer = recorder{n: n}
	return env
}

// server boots an API server at "apiserver".
func (n *testNet) server() *apiServer {
	s, err := newAPIServer(n.env("apiserver"))
	require.NoError(n.t, err)
	n.nodes["apiserver"] = s
	return s
}

// holder boots a holder at self (the mutant's if noRenewTimeout).
func (n *testNet) holder(self lease.Addr, noRenewTimeout bool) *holder {
	h, err := newHolder(n.env(self), testConfig(), "apiserver", "store", noRenewTimeout)
	require.NoError(n.t, err)
	n.nodes[self] = h
	return h
}

// settle delivers every queued message, and those they cause.
func (n *testNet) settle() {
	for len(n.queue) > 0 {
		e := n.queue[0]
		n.queue = n.queue[1:]
		node := n.nodes[e.to]
		if node == nil || (n.drop != nil && n.drop(e)) {
			continue
		}
		if lm, ok := e.m.(lease.Message); ok {
			node.Deliver(e.from, lm)
			continue
		}
		node.(lease.AnyNode).DeliverAny(e.from, e.m)
	}
}

// advance moves time forward by d in 1 ms steps, delivering messages
// after each step.
func (n *testNet) advance(d time.Duration) {
	n.settle()
	for end := n.w.Now() + d; n.w.Now() < end; {
		n.w.Advance(min(time.Millisecond, end-n.w.Now()))
		n.settle()
	}
}

// last returns the latest event of kind on node, and whether there is one.
func (n *testNet) last(node lease.Addr, kind lease.EventKind) (lease.Event, bool) {
	for i := len(n.events) - 1; i >= 0; i-- {
		if ev := n.events[i]; ev.Node == node && ev.Kind == kind {
			return ev, true
		}
	}
	return lease.Event{}, false
}

// count returns how many events of kind node reported.
func (n *testNet) count(node lease.Addr, kind lease.EventKind) int {
	c := 0
	for _, ev := range n.events {
		if ev.Node == node && ev.Kind == kind {
			c++
		}
	}
	return c
}
