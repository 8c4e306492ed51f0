package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// recorder builds the history of a run from what crosses the network and
// what the holders report. It only reads: recording never changes the run,
// so the trace hash is the same with checking on or off.
type recorder struct {
	w          *sim.World
	h          *history.History
	calls      map[opKey]int32 // requests sent, by key, as indices into sent; looked up, never iterated
	sentCalls  []call          // the requests, kept out of the map so that it stays small as it grows
	unreturned map[opKey][]int // ops whose reply has not reached the client yet
	beliefs    beliefTracker
}

// opKey identifies a request: the client, its request id, and the client's
// clock reading when it sent it (request ids restart when a client restarts).
type opKey struct {
	client string
	reqID  uint64
	sentAt time.Duration
}

type call struct {
	at     sim.Time
	server string
	in     lease.Message
}

// newRecorder returns a recorder whose tables start sized for about ops
// operations, so that they seldom grow (a run's history is its largest
// allocation).
func newRecorder(w *sim.World, h *history.History, ops int) *recorder {
	r := &recorder{w: w, h: h, calls: make(map[opKey]int32, ops), sentCalls: make([]call, 0, ops),
		unreturned: make(map[opKey][]int)}
	h.Ops = make([]history.Op, 0, ops)
	r.beliefs = beliefTracker{w: w, h: h}
	return r
}

// sent sees a message leave node from for node to.
func (r *recorder) sent(from, to *sim.Node, m lease.Message) {
	now := r.w.Now()
	if m.Kind == lease.KindEffect || m.Kind == lease.KindEffectReply {
		return // side effects are recorded as Effects when they happen, not as operations
	}
	if m.Kind.IsRequest() {
		key := opKey{client: from.Name(), reqID: m.ReqID, sentAt: m.SentAt}
		if _, seen := r.calls[key]; !seen {
			r.calls[key] = int32(len(r.sentCalls))
			r.sentCalls = append(r.sentCalls, call{at: now, server: to.Name(), in: m})
		}
		return
	}
	// A reply: the server processed a request. Each processing is one Op,
	// so a request the network duplicated and the server ran twice is two.
	key := opKey{client: to.Name(), reqID: m.ReqID, sentAt: m.SentAt}
	i, ok := r.calls[key]
	if !ok || r.sentCalls[i].in.Kind.Reply() != m.Kind {
		return // not a reply to a recorded request
	}
	c := &r.sentCalls[i]
	r.h.Ops = append(r.h.Ops, history.Op{Client: key.client, Server: from.Name(), Call: c.at,
		Return: sim.Never, In: c.in, Out: m, Processed: now})
	r.unreturned[key] = append(r.unreturned[key], len(r.h.Ops)-1)
	if m.Kind == lease.KindListReply {
		for _, kv := range m.Keys {
			r.h.Sightings = append(r.h.Sightings, history.Sighting{Reader: key.client, Key: kv.Key,
				Owner: string(kv.Value), At: now})
		}
	}
}

// delivered sees a message reach node to from node from.
func (r *recorder) delivered(from, to *sim.Node, m lease.Message) {
	now := r.w.Now()
	if m.Kind == lease.KindEffect {
		r.h.Effects = append(r.h.Effects, history.Effect{From: from.Name(), Resource: m.Resource, ID: m.Key, At: now})
		return
	}
	if m.Kind.IsRequest() {
		return
	}
	key := opKey{client: to.Name(), reqID: m.ReqID, sentAt: m.SentAt}
	if idx := r.unreturned[key]; len(idx) > 0 {
		r.h.Ops[idx[0]].Return = now
		r.unreturned[key] = idx[1:]
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
	r.h.Units = append(r.h.Units, history.Unit{Task: task, Index: index, Worker: n.Name(), Token: token, At: r.w.Now()})
}

// observer returns the lease observer that feeds node n's beliefs.
func (r *recorder) observer(n *sim.Node) lease.Observer {
	return beliefObserver{t: &r.beliefs, n: n}
}
