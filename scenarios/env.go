package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// This file adapts a *sim.Node to lease.Env: the kernel knows nothing about
// leases and package lease does not import the kernel, so the wiring layer
// joins them. The PRNG of a sim.Node already satisfies lease.Rand, and its
// storage lease.Storage.
//
// Everything the Env offers is harness code called by the implementation,
// so each call runs behind a harness boundary (guard.go); the functions
// the implementation hands back (a timer's, a failpoint's continuation)
// run behind implementation boundaries. The PRNG is handed over as it is:
// its only panic (Int64N of n <= 0) is its caller's bug.

// nodeClock is a node's monotonic clock with kernel timers. It is the
// node incarnation's transport, a single pointer, so the Env's Clock, Wall
// and Net share one allocation.
type nodeClock struct{ *transport }

func (c nodeClock) Now() time.Duration {
	return c.n.Now()
}

// AfterFunc sets a kernel timer that runs f after d behind an
// implementation boundary (the kernel keeps f: SetTimerVia).
func (c nodeClock) AfterFunc(d time.Duration, f func()) lease.Timer {
	t := c.run.timers.next()
	t.n = c.n
	t.id = c.n.SetTimerVia(d, f, implCall)
	return t
}

// timerChunk carves a run's timers from chunks: the lease core arms a
// timer for every request, renewal and expiry, and one allocation per
// timerChunkLen timers costs a run less than one each. One carver serves
// every node of a run (runWiring), so a node incarnation that arms a
// few timers leaves no part-used chunk of its own. A timer is handed out
// once and never reused, so whoever holds it may keep it; a chunk is freed
// once none of its timers is reachable.
type timerChunk struct{ free []nodeTimer }

// timerChunkLen is how many timers a chunk holds (16 bytes each).
const timerChunkLen = 64

// next returns a zero timer no one else has.
func (c *timerChunk) next() *nodeTimer {
	if len(c.free) == 0 {
		c.free = make([]nodeTimer, timerChunkLen)
	}
	t := &c.free[0]
	c.free = c.free[1:]
	return t
}

func (c nodeClock) WallNow() time.Time {
	return c.n.WallNow()
}

// nodeTimer is a lease.Timer on a kernel timer: what Stop needs.
type nodeTimer struct {
	n  *sim.Node
	id sim.TimerID
}

func (t *nodeTimer) Stop() bool {
	return t.n.CancelTimer(t.id)
}

// nodeTransport sends lease messages over the simulated network and lets the
// recorder see every request and reply as it leaves the node. It is a
// single pointer, so an interface holds it as it is and calls its methods
// directly, not through a wrapper that copies every message once more.
type nodeTransport struct{ *transport }

// transport is a node incarnation's sending side, and its clock
// (nodeClock).
type transport struct {
	n    *sim.Node
	rec  *recorder
	run  *runWiring
	dsts [recentDsts]destination // recent destinations, filled in turn
	next int
}

// runWiring is what the nodes of a run share on the event host: the
// timers they carve and the message payloads they recycle. A payload goes
// back to the run's pool whichever node sent it, so a node incarnation
// starts with the payloads earlier ones left (a restarted or short-lived
// node allocated its own again).
type runWiring struct {
	timers timerChunk
	msgs   messagePool
}

// newRunWiring returns a run's shared wiring, its pool's release bound
// once.
func newRunWiring() *runWiring {
	r := &runWiring{}
	r.msgs.release = func(payload any) { r.msgs.put(payload.(*simMessage)) }
	return r
}

type destination struct {
	addr lease.Addr
	node *sim.Node
}

// recentDsts is how many destinations a transport remembers: a holder
// talks to the grantor and the fenced store, a server answers whoever
// asked last.
const recentDsts = 4

// lookup returns the node at address to. The last few destinations are
// remembered, so that most sends compare a string or two (usually the
// same one: addresses are node names) instead of hashing one.
func (t *transport) lookup(to lease.Addr) *sim.Node {
	for i := range t.dsts {
		if d := &t.dsts[i]; d.node != nil && d.addr == to {
			return d.node
		}
	}
	dst, ok := t.n.World().Lookup(string(to))
	if !ok {
		panic("scenarios: invariant known-address: " + t.n.Name() + " sent to unknown node " + string(to))
	}
	t.dsts[t.next] = destination{to, dst}
	t.next = (t.next + 1) % recentDsts
	return dst
}

func newTransport(n *sim.Node, rec *recorder, run *runWiring) *transport {
	return &transport{n: n, rec: rec, run: run}
}

func (t nodeTransport) Send(to lease.Addr, m lease.Message) {
	injectedHarnessFault()
	dst := t.lookup(to)
	t.rec.sent(t.n, dst, m)
	msgs := &t.run.msgs
	p := msgs.get(&m)
	queued := t.n.SendRelease(dst.ID(), p, msgs.release)
	afterSend(t.n, p)
	if !queued {
		msgs.put(p)
	}
}

// messagePool recycles the payloads a run's nodes send (simMessage),
// so that a message costs no allocation in the steady state. The kernel
// hands a payload back (sim.Node.SendRelease) once no copy of it is queued
// and the handler of its last copy has returned: a handler, and whatever
// it calls, may read the payload only until it returns, and keeps a copy
// of the message if it needs it later (serve does).
type messagePool struct {
	free    []*simMessage
	release func(any) // put, bound once
}

// maxFreeMessages bounds a pool: a run rarely has more messages in flight,
// and those beyond it are left to the collector.
const maxFreeMessages = 256

// get returns a payload holding a copy of *m.
func (p *messagePool) get(m *lease.Message) *simMessage {
	var pm *simMessage
	if n := len(p.free); n > 0 {
		pm = p.free[n-1]
		p.free = p.free[:n-1]
	} else {
		pm = new(simMessage)
	}
	pm.Message = *m
	return pm
}

// put takes a payload back. It is not cleared: get overwrites it whole,
// and clearing it would cost as much again (write barriers while the
// collector marks) to release a few small slices a little earlier.
func (p *messagePool) put(pm *simMessage) {
	if len(p.free) < maxFreeMessages {
		p.free = append(p.free, pm)
	}
}

// nodeStorage is a node's durable storage behind harness boundaries. It
// holds the kernel's store itself, a single pointer, so its methods are
// called directly and the kernel's are not behind another interface.
type nodeStorage struct{ s *sim.Storage }

func (s nodeStorage) Get(key string) ([]byte, bool) {
	return s.s.Get(key)
}

func (s nodeStorage) Put(key string, value []byte) {
	s.s.Put(key, value)
}

func (s nodeStorage) Delete(key string) {
	s.s.Delete(key)
}

func (s nodeStorage) Sync() error {
	return s.s.Sync()
}

// newEnv builds the lease environment of a node for its current
// incarnation, its timers and message payloads the run's (run).
func newEnv(n *sim.Node, rec *recorder, obs lease.Observer, run *runWiring) lease.Env {
	t := newTransport(n, rec, run)
	clock := nodeClock{t}
	if obs != nil {
		obs = guardedObserver{&observerRef{obs}}
	}
	return lease.Env{
		Self:      lease.Addr(n.Name()),
		Clock:     clock,
		Wall:      clock,
		Net:       nodeTransport{t},
		Store:     nodeStorage{n.Storage()},
		Rand:      n.Rand(),
		Observer:  obs,
		Failpoint: nodeFailpoints{n}.hit,
	}
}

// nodeFailpoints hits a node's failpoints for its implementation.
type nodeFailpoints struct{ n *sim.Node }

// hit hits failpoint name, then runs then, the implementation's
// continuation, behind an implementation boundary (when it runs at all).
func (f nodeFailpoints) hit(name string, then func()) { f.n.FailpointVia(name, then, implCall) }

// serve installs node's message handler: every delivered lease message goes
// to the recorder, then to the lease node (behind an implementation
// boundary when it is the implementation's: see guardImpl); a message of
// the implementation's own protocol goes to its lease.AnyNode.
func serve(n *sim.Node, rec *recorder, node any) {
	w := n.World()
	handle := func(src *sim.Node, payload any) {
		sm, ok := payload.(*simMessage)
		if !ok {
			deliverAny(rec, src, n, node, payload)
			return
		}
		m := sm.Message
		rec.delivered(src, n, m)
		deliverLease(node, lease.Addr(src.Name()), m)
	}
	n.Handle(func(from sim.NodeID, payload any) {
		src := w.Node(from)
		if onReplyArmed(n, payload) { // an event-triggered fault (triggers.go)
			if sm, ok := payload.(*simMessage); ok {
				m := *sm // handled later, perhaps: the kernel takes sm back when this returns
				payload = &m
			}
			n.Failpoint(TriggerOnReply, func() { handle(src, payload) })
			return
		}
		handle(src, payload)
	})
}
