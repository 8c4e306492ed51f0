package gohost

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// The history recorder: node code reports what it believes and what its
// fenced store decided, and the host turns the reports into a
// history.History that the checkers judge (P1 from beliefs, P2 from the
// fenced store's writes and the holders' beliefs).

// beliefKey names one life's belief on one resource.
type beliefKey struct {
	node     string
	life     uint64
	resource string
}

// openBelief is a belief not yet ended, with its deadline in true time.
type openBelief struct {
	b     history.BeliefInterval
	until history.Time
}

// recorder builds the history. It lives under h.mu.
type recorder struct {
	open    map[beliefKey]*openBelief // looked up, and closed in any order: beliefs are sorted at the end
	beliefs []history.BeliefInterval
	ops     []history.Operation // the fenced store's, in the order recorded
	// declarations are a failure detector's verdicts (declare.go).
	declarations []history.Declaration

	// The lease store's operations (ops.go), assembled from calls,
	// processings and returns; looked up by ref, never iterated.
	calls   map[OpRef]*pendingOp
	order   []*pendingOp
	callIDs map[lifeKey]uint64

	// sends are when StoreClients sent the writes the store has not yet
	// received (write_flight.go); looked up, never iterated.
	sends map[sentWrite][]history.Time
}

func (r *recorder) init() { r.open = make(map[beliefKey]*openBelief) }

// end closes ob at the earlier of at and its deadline.
func (r *recorder) end(k beliefKey, ob *openBelief, at history.Time, reason history.EndReason) {
	if ob.until <= at {
		at, reason = ob.until, history.EndDeadline
	}
	ob.b.End, ob.b.Reason = max(at, ob.b.Start), reason
	r.beliefs = append(r.beliefs, ob.b)
	delete(r.open, k)
}

// closeLife ends every belief of one life.
func (r *recorder) closeLife(node string, life uint64, at history.Time, reason history.EndReason) {
	for k, ob := range r.open {
		if k.node == node && k.life == life {
			r.end(k, ob, at, reason)
		}
	}
}

// closeAll ends every belief.
func (r *recorder) closeAll(at history.Time, reason history.EndReason) {
	for k, ob := range r.open {
		r.end(k, ob, at, reason)
	}
}

// op appends a fenced store's operation, numbering it.
func (r *recorder) op(o *history.Operation) {
	o.ID = uint64(len(r.ops) + 1)
	r.ops = append(r.ops, *o)
}

// history returns the history of the run that ended at end.
func (r *recorder) history(cfg *Config, end time.Duration, windows []*history.FaultWindow) *history.History {
	bs := slices.Clone(r.beliefs)
	slices.SortFunc(bs, func(a, b history.BeliefInterval) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Holder, b.Holder), cmp.Compare(a.Incarnation, b.Incarnation),
			cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Token, b.Token), cmp.Compare(a.End, b.End))
	})
	fw := make([]history.FaultWindow, len(windows))
	for i, w := range windows {
		fw[i] = *w
	}
	heal := history.Time(cfg.Schedule.HealAt)
	h := &history.History{Spec: cfg.History.Spec, Lease: cfg.History.Lease, Grantor: cfg.History.Grantor,
		Members: slices.Clone(cfg.History.Members), Resource: cfg.History.FencedStore, Beliefs: bs, Faults: fw,
		HealAt: heal, End: history.Time(end), Contended: slices.Clone(cfg.History.Contended),
		Declarations: sortedDeclarations(r.declarations)}
	h.SetOps(append(r.storeOps(len(r.ops)), r.ops...))
	return h
}

// Believe records that the node believes it holds resource under token
// until the instant until (on the bubble's clock): call it when a grant
// or a renewal arrives. A call with the same token before the deadline
// moves the deadline; a call with another token, or after the deadline
// passed, ends the previous belief and starts a new one. The belief ends
// at its deadline unless Release or EndBelief ends it earlier, or the node
// crashes, or the run ends.
func (n *Node) Believe(resource string, token uint64, until time.Time) {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if n.dead {
		return
	}
	now, u := history.Time(h.now()), h.at(until)
	k := beliefKey{node: n.Name(), life: n.life, resource: resource}
	h.note(Event{Kind: "believe", Node: n.Name(), Detail: tokenDetail(resource, token, " until "+u.String())}, nil)
	if ob := h.rec.open[k]; ob != nil {
		if ob.b.Token == token && now < ob.until {
			ob.until, ob.b.LocalDeadline = u, u.Duration()
			return
		}
		h.rec.end(k, ob, now, history.EndLost)
	}
	if u <= now {
		return // a belief that has already ended is none
	}
	h.rec.open[k] = &openBelief{until: u, b: history.BeliefInterval{Holder: n.Name(), Incarnation: n.life,
		Resource: resource, Token: token, Start: now, LocalDeadline: u.Duration(), LastAct: history.Unknown}}
}

// EndBelief records that the node stopped believing it holds resource
// under token now, for reason (history.EndLost when a renewal was
// refused, history.EndFenced when a write was fenced, …). A belief whose
// deadline has already passed ended there, with reason deadline.
func (n *Node) EndBelief(resource string, token uint64, reason history.EndReason) {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	k := beliefKey{node: n.Name(), life: n.life, resource: resource}
	ob := h.rec.open[k]
	if n.dead || ob == nil || ob.b.Token != token {
		return
	}
	h.note(Event{Kind: "end-belief", Node: n.Name(), Detail: tokenDetail(resource, token, " "+string(reason))}, nil)
	h.rec.end(k, ob, history.Time(h.now()), reason)
}

// Act records that the node decided, now, to act under resource's token
// (a write, an effect). The rule is the same on every host: an action
// counts at the decision, the moment the code committed to it on the
// strength of its lease (the event host's recorder records a holder's
// write when the holder decides on it, before its before-write failpoint).
// Call Act there, before any point where the code may stall between
// deciding and doing (a failpoint, a blocking call): a pause in between
// is the Kleppmann hazard, which fencing (P2) must catch, not a belief
// (P1). An action stretches the belief it was taken under to the action,
// so P1 sees a holder that decides after its deadline as believing then.
// An action under a token the node was never seen to believe is a belief
// of one instant, inferred.
func (n *Node) Act(resource string, token uint64) {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if n.dead {
		return
	}
	now := history.Time(h.now())
	h.note(Event{Kind: "act", Node: n.Name(), Detail: tokenDetail(resource, token, "")}, nil)
	k := beliefKey{node: n.Name(), life: n.life, resource: resource}
	if ob := h.rec.open[k]; ob != nil && ob.b.Token == token {
		ob.b.LastAct, ob.until = now, max(ob.until, now)
		return
	}
	for i := len(h.rec.beliefs) - 1; i >= 0; i-- {
		b := &h.rec.beliefs[i]
		if b.Holder == n.Name() && b.Incarnation == n.life && b.Resource == resource && b.Token == token {
			b.LastAct, b.End = now, max(b.End, now)
			return
		}
	}
	h.rec.beliefs = append(h.rec.beliefs, history.BeliefInterval{Holder: n.Name(), Incarnation: n.life,
		Resource: resource, Token: token, Start: now, End: now, Reason: history.EndLost, LastAct: now, Inferred: true})
}

// tokenDetail is a belief's or an action's trace detail, "resource token
// N" and then rest (fmt.Sprintf("%s token %d%s"), without its boxing).
func tokenDetail(resource string, token uint64, rest string) string {
	b := make([]byte, 0, 64)
	b = append(b, resource...)
	b = append(b, " token "...)
	b = strconv.AppendUint(b, token, 10)
	b = append(b, rest...)
	return string(b)
}

// Release records that the node released resource (EndBelief with
// history.EndRelease).
func (n *Node) Release(resource string, token uint64) {
	n.EndBelief(resource, token, history.EndRelease)
}

// Write is a write a fenced store decided, as RecordWrite records it.
type Write struct {
	// Writer and WriterIncarnation are the holder that sent the write.
	Writer            string
	WriterIncarnation uint64
	// Resource is the leased resource the write is fenced by, Key the
	// store's key, Value what was written.
	Resource, Key, Value string
	// Token is the fencing token the write carried.
	Token uint64
	// Accepted says whether the store accepted it.
	Accepted bool
	// Highest is, for a refused write, the highest token the store had
	// accepted, as its reply names it (0 if the reply names none).
	Highest uint64
	// Sent is when the writer sent the write, in true time, when known (a
	// StoreClient's write: RecordWrite finds it); 0 when not.
	Sent history.Time
}

// Operation is w as a fenced-register operation of the store server,
// decided at now. Its call is when the writer sent it (Sent, when known
// and not after now), so a write delayed on its way is in flight from
// then; its processing and return are now: the store's view. P2 reads the
// accepted ones in the order recorded.
func (w Write) Operation(server string, now history.Time) *history.Operation {
	call := now
	if w.Sent > 0 && w.Sent < now {
		call = w.Sent
	}
	out := history.Payload{Kind: string(model.OpWrite) + "_reply", Resource: w.Resource, Key: w.Key, OK: w.Accepted}
	if !w.Accepted {
		out.Err, out.Token = string(model.RegisterFenced), w.Highest
	}
	return &history.Operation{Server: server, Client: w.Writer, Incarnation: w.WriterIncarnation, Processed: now,
		Call: call, Return: now,
		Input:  history.Payload{Kind: string(model.OpWrite), Resource: w.Resource, Key: w.Key, Value: w.Value, Token: w.Token},
		Output: out}
}

// RecordWrite records, on the fenced store's node, a write it accepted or
// refused, as a fenced-register operation (P2 reads the accepted ones in
// the order they were recorded), as Write.Operation makes it. A write a
// StoreClient sent is in flight from its send.
func (n *Node) RecordWrite(w Write) {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if n.dead {
		return
	}
	if w.Sent == 0 {
		w.Sent = h.rec.sentAt(w)
	}
	op := w.Operation(n.Name(), history.Time(h.now()))
	h.note(Event{Kind: "write", Node: n.Name(), Peer: w.Writer,
		Detail: fmt.Sprintf("%s/%s token %d %q accepted=%v", w.Resource, w.Key, w.Token, w.Value, w.Accepted)}, op)
}
