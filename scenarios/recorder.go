package scenarios

import (
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// recorder builds the history of a run from what crosses the network and
// what the holders report: the adapter from leasesim's own protocol to the
// history's records. It only reads: recording never changes the run, so
// the trace hash is the same with checking on or off.
//
// It records compactly: an operation is a small record without pointers
// (opRec) naming its request and its reply, whose messages are kept
// encoded in a few bytes without pointers (strings interned, values copied
// into one buffer: recorder_msg.go). When the run stops, the history is
// given these tables, and builds an operation from them whenever a reader
// asks for one (recordedOps).
//
// Its tables grow with what the run does, from small: a guess of the run's
// size would over-allocate, and a large table sits in memory as ballast.
// Requests are keyed by integers (node ids), so no string is hashed per
// message.
type recorder struct {
	w     *sim.World
	h     *history.History
	calls callIndex // requests sent, by key, as indices into requests (recorder_calls.go)
	// opTables are the requests, their and their replies' messages
	// (recorder_msg.go) and the operations in the order the history lists
	// them, which the history is given (recorded_ops.go).
	opTables
	// checkpoints are the indices of the history's checkpoint operations,
	// in its order.
	checkpoints []int32
	beliefs     beliefTracker
	foreign     foreignOps // the operations of an implementation's own protocol (foreign_ops.go)
	// units and effects are the work done and the side effects, and
	// sightings the registrations readers saw, in the order they happened
	// (recorder_work.go).
	units     chunked[unitRec]
	effects   chunked[effectRec]
	sightings chunked[sightRec]
}

// opKey identifies a request: the client, its request id, and the client's
// clock reading when it sent it (request ids restart when a client restarts).
type opKey struct {
	client sim.NodeID
	reqID  uint64
	sentAt time.Duration
}

// call is one request the recorder saw leave its client.
type call struct {
	at     history.Time
	reqID  uint64
	sentAt time.Duration
	client sim.NodeID
	reply  lease.Kind // the reply kind that answers it
	in     int32      // the request's message, in recorder.msgs
	// head and tail list the ops whose reply has not reached the client,
	// oldest first (-1 when none), linked by opRec.next.
	head, tail int32
}

// opRec is one operation while the run goes: a server processed a request
// (a leasesim request, or a foreign one when req < 0).
type opRec struct {
	processed, ret history.Time
	req            int32      // into recorder.requests; -1 for a foreign operation
	out            int32      // the reply, in recorder.msgs (a foreign operation: into foreignOps.ops)
	server         sim.NodeID // the node that processed it
	next           int32      // the next op of the same request whose reply has not reached the client, or -1
}

// newRecorder returns a recorder with small tables that grow with the run,
// or with an earlier run's (recorder_scratch.go).
func newRecorder(w *sim.World, h *history.History) *recorder {
	r := &recorder{w: w, h: h, beliefs: newBeliefTracker(w, h)}
	r.takeScratch()
	return r
}

// sent sees a message leave node from for node to.
func (r *recorder) sent(from, to *sim.Node, m lease.Message) {
	if m.Kind == lease.KindEffect || m.Kind == lease.KindEffectReply {
		return // side effects are recorded as Effects when they happen, not as operations
	}
	if m.Kind.IsRequest() {
		key := opKey{client: from.ID(), reqID: m.ReqID, sentAt: m.SentAt}
		if slot, seen := r.calls.reserve(&r.requests, key); !seen {
			r.calls.fill(slot, r.requests.add(call{at: history.Time(r.w.Now()), reqID: m.ReqID, sentAt: m.SentAt,
				client: from.ID(), reply: m.Kind.Reply(), in: r.msgs.add(&m), head: -1, tail: -1}))
		}
		return
	}
	// A reply: the server processed a request. Each processing is one Op,
	// so a request the network duplicated and the server ran twice is two.
	key := opKey{client: to.ID(), reqID: m.ReqID, sentAt: m.SentAt}
	i, ok := r.calls.lookup(&r.requests, key)
	if !ok {
		return
	}
	c := r.requests.at(i)
	if c.reply != m.Kind {
		return // not a reply to a recorded request
	}
	now := history.Time(r.w.Now())
	op := r.addOp(opRec{processed: now, ret: history.Never, req: i, out: r.msgs.add(&m), server: from.ID()})
	if m.Kind == lease.KindCheckpointReply {
		r.checkpoints = append(r.checkpoints, op)
	}
	if c.tail >= 0 {
		r.ops.at(c.tail).next = op
	} else {
		c.head = op
	}
	c.tail = op
	if m.Kind == lease.KindListReply {
		for _, kv := range m.Keys {
			r.sightings.add(sightRec{at: now, reader: to.ID(), key: r.msgs.strs.id(kv.Key), owner: r.msgs.strs.idBytes(kv.Value)})
		}
	}
}

// addOp appends op to the operations and returns its index.
func (r *recorder) addOp(op opRec) int32 {
	op.next = -1
	return r.ops.add(op)
}

// finish gives the history its operations (recordedOps), and builds its
// units, effects, sightings and beliefs (each belief cut at the first of its holder's
// crashes after it began), once the run has stopped.
func (r *recorder) finish(crashes map[string][]history.Time) {
	nodes := r.w.Nodes()
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name()
	}
	text := string(r.msgs.text) // one string that every value and state is cut from
	src := &recordedOps{opTables: r.opTables, foreign: r.foreign.ops, names: names, text: text}
	r.h.SetOpSource(src)
	handOnWhenUnreachable(src)
	r.finishWork(nodes, text)
	r.beliefs.finish(crashes)
	r.putScratch()
	r.opTables, r.calls, r.foreign = opTables{}, callIndex{}, foreignOps{}
	r.units, r.effects, r.beliefs.beliefs = chunked[unitRec]{}, chunked[effectRec]{}, chunked[history.BeliefInterval]{}
	r.sightings = chunked[sightRec]{}
}

// doubled returns s with room for at least one more element: its capacity
// doubles when full (from 64), so that all the copies made while a table
// grows add up to at most its final size. (append alone grows large slices
// by a quarter, which copies a large table about four times over.)
func doubled[S ~[]E, E any](s S) S {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 64))
}

// chunkSize is the number of elements in each chunk of the recorder's
// tables (chunked, and the message table: recorder_msg.go).
const chunkSize = 256

// chunked is a table that grows by whole chunks of chunkSize elements, so
// that no element is copied or moved once added, none of its memory is
// allocated twice, and it holds no spare room beyond its last chunk. Its
// chunks are small and all of one size: a table that doubles leaves holes of
// every size behind it as it grows, and a large run's (hundreds of
// thousands of requests) then made the heap's address space, and the
// process's resident set, half as large again as the heap it used.
type chunked[E any] struct {
	chunks [][]E
	n      int32
}

// add appends e and returns its index.
func (t *chunked[E]) add(e E) int32 {
	c := int(t.n / chunkSize)
	if c == len(t.chunks) {
		t.chunks = append(t.chunks, make([]E, chunkSize))
	}
	t.chunks[c][t.n%chunkSize] = e
	t.n++
	return t.n - 1
}

// at returns element i.
func (t *chunked[E]) at(i int32) *E { return &t.chunks[i/chunkSize][i%chunkSize] }

// delivered sees a message reach node to from node from.
func (r *recorder) delivered(from, to *sim.Node, m lease.Message) {
	if m.Kind == lease.KindEffect {
		r.effects.add(effectRec{at: history.Time(r.w.Now()), incarnation: from.Incarnation(), id: r.msgs.addText(m.Key),
			from: from.ID(), resource: r.msgs.strs.id(m.Resource)})
		return
	}
	if m.Kind.IsRequest() {
		return
	}
	i, ok := r.calls.lookup(&r.requests, opKey{client: to.ID(), reqID: m.ReqID, sentAt: m.SentAt})
	if !ok {
		return
	}
	if c := r.requests.at(i); c.head >= 0 {
		head := r.ops.at(c.head)
		head.ret = history.Time(r.w.Now())
		c.head = head.next
		if c.head < 0 {
			c.tail = -1
		}
	}
}

// act records that a holder acted under a token now: belief is also what a
// holder does.
func (r *recorder) act(n *sim.Node, resource string, token uint64) {
	markAction(r.w, n, resource, token)
	r.beliefs.act(n, resource, token)
}

// unit records a unit of work completed under a token.
func (r *recorder) unit(n *sim.Node, task string, index int, token uint64) {
	markUnitDone(r.w, n, task, index, token)
	r.units.add(unitRec{at: history.Time(r.w.Now()), incarnation: n.Incarnation(), token: token, index: index,
		task: r.msgs.strs.id(task), worker: n.ID()})
}

// observer returns the lease observer that feeds node n's beliefs.
func (r *recorder) observer(n *sim.Node) lease.Observer {
	return beliefObserver{t: &r.beliefs, n: n}
}
