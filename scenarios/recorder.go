package scenarios

import (
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// recorder builds the history of a run from what crosses the network and
// what the holders report: the adapter from leasesim's own protocol to the
// history's records. Each operation's request and reply are converted to
// the history's payloads (leasewire.Payload) as they are recorded. It only
// reads: recording never changes the run, so the trace hash is the same
// with checking on or off.
//
// Its tables grow with what the run does, from small: a guess of the run's
// size would over-allocate, and a large table sits in memory as ballast.
// Requests are keyed by integers (node ids), so no string is hashed per
// message, and a request's message is kept only until its first reply
// turns it into the history's operation.
type recorder struct {
	w        *sim.World
	h        *history.History
	calls    map[opKey]int32 // requests sent, by key, as indices into requests; looked up, never iterated
	requests []call          // the requests, kept out of the map so that it stays small as it grows
	ins      []lease.Message // messages of requests no reply has reached the recorder for yet, by call.in
	freeIns  []int32         // free slots of ins
	// nextUnreturned links an op (by index into h.Ops) to the next op of
	// the same request whose reply has not reached the client, or -1.
	nextUnreturned []int32
	beliefs        beliefTracker
	foreign        foreignOps // the operations of an implementation's own protocol (foreign_ops.go)
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
	server sim.NodeID
	reply  lease.Kind // the reply kind that answers it
	// in is the request's slot in recorder.ins until its first reply is
	// recorded; afterwards the request is that op's Input, and in is -1.
	in    int32
	first int32 // the first op recorded for it, -1 before
	// head and tail list the ops whose reply has not reached the client,
	// oldest first (-1 when none), linked by recorder.nextUnreturned.
	head, tail int32
}

// newRecorder returns a recorder with small tables that grow with the run.
func newRecorder(w *sim.World, h *history.History) *recorder {
	r := &recorder{w: w, h: h, calls: make(map[opKey]int32)}
	r.beliefs = newBeliefTracker(w, h)
	return r
}

// sent sees a message leave node from for node to.
func (r *recorder) sent(from, to *sim.Node, m lease.Message) {
	if m.Kind == lease.KindEffect || m.Kind == lease.KindEffectReply {
		return // side effects are recorded as Effects when they happen, not as operations
	}
	if m.Kind.IsRequest() {
		key := opKey{client: from.ID(), reqID: m.ReqID, sentAt: m.SentAt}
		if _, seen := r.calls[key]; !seen {
			r.calls[key] = int32(len(r.requests))
			r.requests = append(doubled(r.requests), call{at: history.Time(r.w.Now()), server: to.ID(), reply: m.Kind.Reply(),
				in: r.keep(m), first: -1, head: -1, tail: -1})
		}
		return
	}
	// A reply: the server processed a request. Each processing is one Op,
	// so a request the network duplicated and the server ran twice is two.
	key := opKey{client: to.ID(), reqID: m.ReqID, sentAt: m.SentAt}
	i, ok := r.calls[key]
	if !ok || r.requests[i].reply != m.Kind {
		return // not a reply to a recorded request
	}
	c := &r.requests[i]
	now := history.Time(r.w.Now())
	var op int32
	if c.first < 0 {
		op = r.addOp(leasewire.NewOperation(to.Name(), from.Name(), c.at, now, history.Never, r.ins[c.in], m))
		r.ins[c.in] = lease.Message{}
		r.freeIns = append(r.freeIns, c.in)
		c.in, c.first = -1, op
	} else { // the same request processed again: the first one's input
		first := &r.h.Ops[c.first]
		op = r.addOp(history.Operation{Client: first.Client, Incarnation: first.Incarnation,
			Server: from.Name(), ID: first.ID, Call: c.at, Processed: now, Return: history.Never, Input: first.Input,
			Output: leasewire.Payload(m)})
	}
	if c.tail >= 0 {
		r.nextUnreturned[c.tail] = op
	} else {
		c.head = op
	}
	c.tail = op
	if m.Kind == lease.KindListReply {
		for _, kv := range m.Keys {
			r.h.Sightings = append(r.h.Sightings, history.RegistrationSighted{Reader: to.Name(), Key: kv.Key,
				Owner: string(kv.Value), At: now})
		}
	}
}

// addOp appends op to the history's operations, with its entry in the
// recorder's per-operation table, and returns its index.
func (r *recorder) addOp(op history.Operation) int32 {
	i := int32(len(r.h.Ops))
	r.h.Ops = append(doubled(r.h.Ops), op)
	r.nextUnreturned = append(doubled(r.nextUnreturned), -1)
	return i
}

// keep stores a request's message until its first reply and returns its slot.
func (r *recorder) keep(m lease.Message) int32 {
	if n := len(r.freeIns); n > 0 {
		slot := r.freeIns[n-1]
		r.freeIns = r.freeIns[:n-1]
		r.ins[slot] = m
		return slot
	}
	r.ins = append(doubled(r.ins), m)
	return int32(len(r.ins) - 1)
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

// delivered sees a message reach node to from node from.
func (r *recorder) delivered(from, to *sim.Node, m lease.Message) {
	if m.Kind == lease.KindEffect {
		r.h.Effects = append(r.h.Effects, history.SideEffect{From: from.Name(), Resource: m.Resource, ID: m.Key,
			At: history.Time(r.w.Now())})
		return
	}
	if m.Kind.IsRequest() {
		return
	}
	i, ok := r.calls[opKey{client: to.ID(), reqID: m.ReqID, sentAt: m.SentAt}]
	if !ok {
		return
	}
	if c := &r.requests[i]; c.head >= 0 {
		r.h.Ops[c.head].Return = history.Time(r.w.Now())
		c.head = r.nextUnreturned[c.head]
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
	r.h.Units = append(r.h.Units, history.UnitDone{Task: task, Index: index, Worker: n.Name(), Token: token,
		At: history.Time(r.w.Now())})
}

// observer returns the lease observer that feeds node n's beliefs.
func (r *recorder) observer(n *sim.Node) lease.Observer {
	return beliefObserver{t: &r.beliefs, n: n}
}
