package leasetest

import (
	"container/heap"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// MaxDeliveries bounds how many messages one Settle delivers, so that a
// message storm fails loudly instead of spinning.
const MaxDeliveries = 1_000_000

// World is a deterministic environment for lease nodes. It is not safe for
// concurrent use; everything runs on the test's goroutine.
type World struct {
	now    time.Duration
	seq    uint64
	timers timerHeap
	queue  []envelope
	nodes  map[lease.Addr]*slot
	// Intercept, if set, sees every message as it is about to be
	// delivered. Returning false takes it out of the network; the test may
	// keep it and inject it later with Send.
	Intercept func(from, to lease.Addr, m lease.Message) bool
	// Delivered counts delivered messages.
	Delivered int
}

type envelope struct {
	from, to lease.Addr
	m        lease.Message
}

// slot is one node address: its durable store outlives crashes.
type slot struct {
	node     lease.Node
	store    *Store
	life     uint64
	paused   bool
	inbox    []envelope // messages that arrived while paused
	deferred []*timer   // timers that came due while paused
}

// NewWorld returns an empty world at time zero.
func NewWorld() *World { return &World{nodes: make(map[lease.Addr]*slot)} }

// Now returns the world time.
func (w *World) Now() time.Duration { return w.now }

// Env returns an environment for a new incarnation of the node at self. Its
// Store is the node's store, kept across crashes; its random source is
// seeded from seed and self.
func (w *World) Env(self lease.Addr, seed uint64) lease.Env {
	s := w.slot(self)
	clock := nodeClock{w: w, self: self, life: s.life}
	h := fnv.New64a()
	h.Write([]byte(self))
	return lease.Env{
		Self:  self,
		Clock: clock,
		Wall:  clock,
		Net:   transport{w: w, self: self},
		Store: s.store,
		Rand:  rand.New(rand.NewPCG(seed, h.Sum64())),
	}
}

// Register makes n receive the messages sent to self.
func (w *World) Register(self lease.Addr, n any) {
	node, ok := n.(lease.Node)
	if !ok {
		panic(fmt.Sprintf("leasetest: invariant node-takes-lease-messages: %T registered at %s is no lease.Node", n, self))
	}
	w.slot(self).node = node
}

// Store returns the durable store of the node at self.
func (w *World) Store(self lease.Addr) *Store { return w.slot(self).store }

// Crash kills the node at self: its timers never fire, messages to it are
// dropped until a new incarnation registers, and unsynced writes are lost.
func (w *World) Crash(self lease.Addr) {
	s := w.slot(self)
	s.life++
	s.node = nil
	s.paused = false
	s.inbox, s.deferred = nil, nil
	s.store.Crash()
}

// Pause freezes the node at self, like a long GC pause or a VM migration:
// its timers do not fire and messages to it wait, until Resume.
func (w *World) Pause(self lease.Addr) { w.slot(self).paused = true }

// Resume ends a pause: timers that came due fire now, in order, and the
// messages that waited are delivered, after anything the node does first.
func (w *World) Resume(self lease.Addr) {
	s := w.slot(self)
	s.paused = false
	for _, t := range s.deferred {
		t.at = w.now
		heap.Push(&w.timers, t)
	}
	s.deferred = nil
	w.queue = append(w.queue, s.inbox...)
	s.inbox = nil
}

// Send queues m from from to to, as if sent on the network.
func (w *World) Send(from, to lease.Addr, m lease.Message) {
	w.queue = append(w.queue, envelope{from: from, to: to, m: m})
}

// Settle delivers queued messages, in order, until none is left. It panics
// after MaxDeliveries.
func (w *World) Settle() {
	for n := 0; len(w.queue) > 0; n++ {
		if n >= MaxDeliveries {
			panic(fmt.Sprintf("leasetest: more than %d deliveries in one Settle", MaxDeliveries))
		}
		e := w.queue[0]
		w.queue = w.queue[1:]
		w.deliver(e)
	}
}

// Advance moves time forward by d, firing due timers in order and settling
// the network after each.
func (w *World) Advance(d time.Duration) {
	target := w.now + d
	w.Settle()
	for len(w.timers) > 0 && w.timers[0].at <= target {
		t := heap.Pop(&w.timers).(*timer)
		w.now = max(w.now, t.at)
		owner := w.slot(t.owner)
		if t.stopped || t.life != owner.life {
			continue
		}
		if owner.paused {
			owner.deferred = append(owner.deferred, t)
			continue
		}
		t.fired = true
		t.f()
		w.Settle()
	}
	w.now = max(w.now, target)
}

func (w *World) deliver(e envelope) {
	if s := w.nodes[e.to]; s != nil && s.paused {
		s.inbox = append(s.inbox, e)
		return
	}
	if w.Intercept != nil && !w.Intercept(e.from, e.to, e.m) {
		return
	}
	s := w.nodes[e.to]
	if s == nil || s.node == nil {
		return
	}
	w.Delivered++
	s.node.Deliver(e.from, e.m)
}

func (w *World) slot(self lease.Addr) *slot {
	s := w.nodes[self]
	if s == nil {
		s = &slot{store: NewStore()}
		w.nodes[self] = s
	}
	return s
}

// transport is one node's lease.Transport.
type transport struct {
	w    *World
	self lease.Addr
}

// Send queues m for delivery.
func (t transport) Send(to lease.Addr, m lease.Message) { t.w.Send(t.self, to, m) }
