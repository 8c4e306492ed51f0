package redislock

import (
	"slices"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
)

// This file is a hand-driven environment for unit tests: a manual clock
// with timers, a network that only records what is sent (the test plays
// the other side), a store with crash semantics, a fixed random source
// and an observer that keeps every event.

// testClock is a manual monotonic clock. Timers fire in time order, then
// in the order they were armed, when the test advances it.
type testClock struct {
	now    time.Duration
	timers []*testTimer
	armed  int
}

type testTimer struct {
	at      time.Duration
	order   int
	f       func()
	pending bool
}

func (t *testTimer) Stop() bool {
	was := t.pending
	t.pending = false
	return was
}

func (c *testClock) Now() time.Duration { return c.now }

func (c *testClock) AfterFunc(d time.Duration, f func()) lease.Timer {
	c.armed++
	t := &testTimer{at: c.now + max(d, 0), order: c.armed, f: f, pending: true}
	c.timers = append(c.timers, t)
	return t
}

// advance moves the clock forward by d, firing every timer that falls due
// on the way, at its own instant.
func (c *testClock) advance(d time.Duration) {
	end := c.now + d
	for {
		i := slices.IndexFunc(c.timers, func(t *testTimer) bool { return t.pending && t.at <= end })
		if i < 0 {
			break
		}
		for j, t := range c.timers {
			if t.pending && t.at <= end && (t.at < c.timers[i].at || t.at == c.timers[i].at && t.order < c.timers[i].order) {
				i = j
			}
		}
		t := c.timers[i]
		t.pending = false
		c.now = max(c.now, t.at)
		t.f()
	}
	c.now = end
}

// sent is one message a node sent.
type sent struct {
	to lease.Addr
	m  any
}

// testNet records what is sent; the test delivers by hand.
type testNet struct{ out []sent }

func (n *testNet) Send(to lease.Addr, m lease.Message) { n.out = append(n.out, sent{to, m}) }
func (n *testNet) SendAny(to lease.Addr, m any)        { n.out = append(n.out, sent{to, m}) }

// take returns and forgets everything sent so far.
func (n *testNet) take() []sent {
	out := n.out
	n.out = nil
	return out
}

// commands returns the Commands among msgs.
func commands(msgs []sent) []Command {
	var out []Command
	for _, s := range msgs {
		if c, ok := s.m.(Command); ok {
			out = append(out, c)
		}
	}
	return out
}

// zeroRand always draws 0: backoffs take their shortest jittered value.
type zeroRand struct{}

func (zeroRand) Int64N(int64) int64 { return 0 }

// events keeps every observed event.
type events struct{ list []lease.Event }

func (e *events) Observe(ev lease.Event) { e.list = append(e.list, ev) }

// kinds returns the kinds observed, in order.
func (e *events) kinds() []lease.EventKind {
	out := make([]lease.EventKind, len(e.list))
	for i, ev := range e.list {
		out[i] = ev.Kind
	}
	return out
}

// last returns the last event observed.
func (e *events) last() lease.Event { return e.list[len(e.list)-1] }

// testNode is one node's environment, kept across its crashes.
type testNode struct {
	clock *testClock
	net   *testNet
	store *leasetest.Store
	obs   *events
	self  lease.Addr
	// failpoint, when set, is Env.Failpoint.
	failpoint func(name string, then func())
}

func newTestNode(self lease.Addr) *testNode {
	return &testNode{clock: &testClock{now: time.Hour}, net: &testNet{}, store: leasetest.NewStore(), obs: &events{}, self: self}
}

func (n *testNode) env() lease.Env {
	return lease.Env{Self: n.self, Clock: n.clock, Net: n.net, Store: n.store, Rand: zeroRand{},
		Observer: n.obs, Failpoint: n.failpoint}
}
