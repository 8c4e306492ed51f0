package sim

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// NodeID is a node's index in its world, in the order nodes were added.
type NodeID int32

// NodeState is whether a node runs, is paused, or is crashed.
type NodeState uint8

// The states of a node.
const (
	Up      NodeState = iota // processing events
	Paused                   // frozen: clocks run, events wait
	Crashed                  // down: volatile state gone, events for it dropped
)

var nodeStateNames = [...]string{Up: "up", Paused: "paused", Crashed: "crashed"}

// String names the state: "up", "paused" or "crashed".
func (s NodeState) String() string { return nodeStateNames[s] }

// TimerID identifies a pending timer. The zero value is no timer.
type TimerID struct {
	slot uint32
	gen  uint32
}

// Node is a simulated process with an address, two clocks, a durable store,
// its own PRNG, and a message handler. Node code runs only inside events of
// its world: the boot function, timer callbacks and the message handler.
type Node struct {
	// The fields read on every event come first, to share a cache line.
	w     *World
	id    NodeID
	state NodeState
	clock clock
	// The node's PRNG lives inside the node, next to the fields read on
	// every event, so that node code drawing from it (jitter, backoff)
	// touches no other cache line.
	pcg         rand.PCG
	rand        rand.Rand
	name        string
	wallOffset  time.Duration
	incarnation uint64
	pauseUntil  Time
	pauseEpoch  uint64
	deferred    []event
	boot        func(*Node)
	handler     func(from NodeID, payload any)
	storage     Storage
	failpoints  []armedFailpoint
}

// AddNode adds a node with a unique name. boot runs as the node's first
// event, and again inside every Restart; it installs the node's handler and
// builds its volatile state (reading durable state from Storage).
func (w *World) AddNode(name string, boot func(*Node)) *Node {
	if _, dup := w.byName[name]; dup {
		panic(fmt.Sprintf("sim: AddNode: duplicate node name %q", name))
	}
	if len(w.nodes) >= w.cfg.Limits.Nodes {
		panic(fmt.Sprintf("sim: AddNode: node limit %d reached", w.cfg.Limits.Nodes))
	}
	n := &Node{w: w, id: NodeID(len(w.nodes)), name: name, boot: boot, storage: newStorage()}
	seedPCG(&n.pcg, w.derive("node/"+name))
	n.rand = *rand.New(&n.pcg)
	// Monotonic clocks start at arbitrary, different origins, as on real
	// machines, so that comparing readings across nodes is visibly wrong.
	n.clock = newClock(time.Duration(n.rand.Int64N(int64(time.Hour))))
	w.nodes = append(w.nodes, n)
	w.byName[name] = n.id
	if boot != nil {
		n.SetTimer(0, n.runBoot)
	}
	return n
}

// runBoot starts the node's current incarnation.
func (n *Node) runBoot() {
	if n.boot == nil {
		return
	}
	n.w.record(RecBoot, n.id, -1, n.incarnation, 0)
	n.boot(n)
}

// ID returns the node's id.
func (n *Node) ID() NodeID { return n.id }

// Name returns the node's address.
func (n *Node) Name() string { return n.name }

// World returns the node's world.
func (n *Node) World() *World { return n.w }

// State returns whether the node is up, paused or crashed.
func (n *Node) State() NodeState { return n.state }

// Incarnation counts the node's restarts.
func (n *Node) Incarnation() uint64 { return n.incarnation }

// Rand returns the node's own PRNG.
func (n *Node) Rand() *rand.Rand { return &n.rand }

// Storage returns the node's durable store.
func (n *Node) Storage() *Storage { return &n.storage }

// Handle installs the function that receives messages sent to this node.
// A crash removes it; boot installs it again.
func (n *Node) Handle(h func(from NodeID, payload any)) { n.handler = h }

// Now returns the node's monotonic clock reading.
func (n *Node) Now() time.Duration { return n.clock.at(n.w.now) }

// WallNow returns the node's wall clock reading: Epoch plus the monotonic
// time elapsed since the clock's origin plus every step so far.
func (n *Node) WallNow() time.Time {
	return Epoch.Add(n.Now() - n.clock.segs[0].monoStart + n.wallOffset)
}

// MonoAt returns what the node's monotonic clock read at true time t (for a
// t in the future: will read, if the current drift continues).
func (n *Node) MonoAt(t Time) time.Duration { return n.clock.at(t) }

// TrueTimeOf returns the earliest true time at which the node's monotonic
// clock read at least mono, assuming the current drift continues, or Never
// if that lies beyond any representable time. Checkers use it to map a
// local deadline back to true time. For any t >= 0, TrueTimeOf(MonoAt(t))
// is at most t.
func (n *Node) TrueTimeOf(mono time.Duration) Time { return n.clock.trueAt(mono) }

// DriftPPB returns the clock's current drift in parts per billion.
func (n *Node) DriftPPB() int64 { return n.clock.drift() }

// Send sends payload to another node over the network. Payloads are shared
// between duplicates and must not be mutated after sending.
func (n *Node) Send(to NodeID, payload any) { n.SendRelease(to, payload, nil) }

// SendRelease is Send for a sender that recycles its payloads. Once the
// kernel holds no copy of payload any more, it calls release(payload): when
// the handler that received its last copy (a duplicate is a second copy)
// has returned, or when that copy is dropped. A handler may therefore use
// a payload only until it returns. SendRelease reports whether any copy
// was queued; if none was (a partition, a loss or the link's in-flight
// bound dropped it at once), release is never called and the payload is
// the sender's again. A nil release makes it Send. A node that crashed
// during the handler now running (a failpoint in a callback) has no
// process left to send: the send does nothing, as SetTimer then does.
func (n *Node) SendRelease(to NodeID, payload any, release func(any)) bool {
	if n.state == Crashed {
		return false
	}
	n.mustRun("Send")
	if to < 0 || int(to) >= len(n.w.nodes) {
		panic(fmt.Sprintf("sim: invariant known-node: %s sent to node id %d, which does not exist", n.name, to))
	}
	return n.w.net.send(n.id, to, payload, release)
}

// SetTimer runs fn after d of the node's local monotonic time (a negative d
// counts as zero). It never fires early in local time; a pause makes it fire
// late. A crashed node has no process to run fn: SetTimer then does nothing
// and returns the zero TimerID.
func (n *Node) SetTimer(d time.Duration, fn func()) TimerID { return n.SetTimerCallback(d, Func(fn)) }

// SetTimerVia is SetTimer for a host that runs node code through a wrapper
// of its own (a recover boundary, say): when the timer fires it calls
// via(fn). Unlike a closure around fn, or a Callback holding it, it costs
// no allocation: the kernel keeps both in the timer's slot. A nil via runs
// fn directly.
func (n *Node) SetTimerVia(d time.Duration, fn func(), via func(func())) TimerID {
	id := n.SetTimerCallback(d, Func(fn))
	if id.gen != 0 {
		n.w.timers[id.slot].via = via
	}
	return id
}

// SetTimerCallback is SetTimer with c.Run as the function to run.
func (n *Node) SetTimerCallback(d time.Duration, c Callback) TimerID {
	if n.state == Crashed {
		return TimerID{}
	}
	w := n.w
	slot := w.allocTimer(c, n.id)
	t := &w.timers[slot]
	t.due = satAdd(n.clock.at(w.now), max(d, 0))
	w.pushTimer(max(n.clock.trueAt(t.due), w.now), slot)
	return TimerID{slot: slot, gen: t.gen}
}

// CancelTimer stops a pending timer and reports whether it was pending.
func (n *Node) CancelTimer(id TimerID) bool {
	if id.gen == 0 || int(id.slot) >= len(n.w.timers) {
		return false
	}
	t := &n.w.timers[id.slot]
	if t.gen != id.gen || !t.live || t.node != n.id {
		return false
	}
	queued := !t.deferred
	if t.deferred {
		n.dropDeferredTimer(id.slot)
	}
	n.w.freeTimer(id.slot, queued)
	return true
}

// TimerPending reports whether the timer id is still pending on this node:
// set, and neither fired nor cancelled.
func (n *Node) TimerPending(id TimerID) bool {
	if id.gen == 0 || int(id.slot) >= len(n.w.timers) {
		return false
	}
	t := &n.w.timers[id.slot]
	return t.gen == id.gen && t.live && t.node == n.id
}

func (n *Node) mustRun(op string) {
	if n.state != Up {
		panic(fmt.Sprintf("sim: invariant node-runs-only-when-up: %s on %s node %s", op, n.state, n.name))
	}
}
