package gohost

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/leasesim/leasesim/history"
)

// OpRef names one request of a client: the client node, its incarnation
// and an id unique in that life. [Node.Call] makes one on the client; the
// request carries it (a header, a field) to the server, which names it in
// [Node.Processed].
type OpRef struct {
	Client      string
	Incarnation uint64
	ID          uint64
}

// String renders the ref as "client/incarnation/id", the form a request
// header can carry; ParseOpRef reads it back.
func (r OpRef) String() string { return fmt.Sprintf("%s/%d/%d", r.Client, r.Incarnation, r.ID) }

// ParseOpRef reads an OpRef written by OpRef.String.
func ParseOpRef(s string) (OpRef, error) {
	var r OpRef
	i := len(s)
	parts := make([]string, 0, 3)
	for j := len(s) - 1; j >= 0 && len(parts) < 2; j-- {
		if s[j] == '/' {
			parts = append(parts, s[j+1:i])
			i = j
		}
	}
	if len(parts) != 2 || i == 0 {
		return OpRef{}, fmt.Errorf("gohost: op ref %q: want client/incarnation/id", s)
	}
	r.Client = s[:i]
	if _, err := fmt.Sscan(parts[1], &r.Incarnation); err != nil {
		return OpRef{}, fmt.Errorf("gohost: op ref %q: incarnation: %w", s, err)
	}
	if _, err := fmt.Sscan(parts[0], &r.ID); err != nil {
		return OpRef{}, fmt.Errorf("gohost: op ref %q: id: %w", s, err)
	}
	return r, nil
}

// pendingOp is an operation being assembled from its call, its
// processing and its return.
type pendingOp struct {
	op        history.Operation
	processed bool
}

// Call records, on a client, that it sends a request with input to the
// node server now, and returns the request's ref for the server to name
// in Processed. The
// operation is judged by P3 against the spec the history declares
// (HistoryConfig.Spec), with the payload conventions of that spec.
func (n *Node) Call(server string, input history.Payload) OpRef {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	ref := OpRef{Client: n.Name(), Incarnation: n.life, ID: h.rec.nextCall(n.Name(), n.life)}
	if n.dead {
		return ref
	}
	now := history.Time(h.now())
	h.rec.opened(ref, history.Operation{Server: server, Client: ref.Client, Incarnation: ref.Incarnation, ID: ref.ID,
		Call: now, Processed: history.Unknown, Return: history.Never, Input: input})
	h.note(Event{Kind: "call", Node: n.Name(), Detail: callDetail(ref.ID, input)}, nil)
	return ref
}

// Processed records, on the server, that it processed the request ref
// now with output: the operation took effect here, whether or not its
// reply reaches the client. Call it as the server acts: a request never
// processed is no operation. A request processed twice (a retry under
// the same ref) keeps its first processing.
func (n *Node) Processed(ref OpRef, output history.Payload) {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if n.dead {
		return
	}
	if p := h.rec.calls[ref]; p != nil && !p.processed {
		p.processed = true
		p.op.Server, p.op.Processed, p.op.Output = n.Name(), history.Time(h.now()), output
	}
	h.note(Event{Kind: "processed", Node: n.Name(), Peer: ref.Client,
		Detail: processedDetail(ref, output)}, nil)
}

// Return records, on the client, that the reply to ref reached it now.
func (n *Node) Return(ref OpRef) {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if n.dead {
		return
	}
	if p := h.rec.calls[ref]; p != nil && p.op.Return == history.Never {
		p.op.Return = history.Time(h.now())
	}
	h.note(Event{Kind: "return", Node: n.Name(), Detail: strconv.FormatUint(ref.ID, 10)}, nil)
}

// callDetail is a call's trace detail, "id kind key" (what
// fmt.Sprintf("%d %s %s") gives, without its boxing: a run records one per
// request).
func callDetail(id uint64, input history.Payload) string {
	b := make([]byte, 0, 64)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, ' ')
	b = append(b, input.Kind...)
	b = append(b, ' ')
	b = append(b, input.Key...)
	return string(b)
}

// processedDetail is a processing's trace detail, "incarnation/id kind
// ok=bool err" (fmt.Sprintf("%d/%d %s ok=%v %s")).
func processedDetail(ref OpRef, output history.Payload) string {
	b := make([]byte, 0, 64)
	b = strconv.AppendUint(b, ref.Incarnation, 10)
	b = append(b, '/')
	b = strconv.AppendUint(b, ref.ID, 10)
	b = append(b, ' ')
	b = append(b, output.Kind...)
	b = append(b, " ok="...)
	b = strconv.AppendBool(b, output.OK)
	b = append(b, ' ')
	b = append(b, output.Err...)
	return string(b)
}

// lifeKey names one life of a node.
type lifeKey struct {
	node string
	life uint64
}

// nextCall numbers a life's calls from 1.
func (r *recorder) nextCall(node string, life uint64) uint64 {
	if r.callIDs == nil {
		r.callIDs = make(map[lifeKey]uint64)
	}
	k := lifeKey{node, life}
	r.callIDs[k]++
	return r.callIDs[k]
}

// opened starts assembling the operation of a call.
func (r *recorder) opened(ref OpRef, op history.Operation) {
	if r.calls == nil {
		r.calls = make(map[OpRef]*pendingOp)
	}
	p := &pendingOp{op: op}
	r.calls[ref] = p
	r.order = append(r.order, p)
}

// storeOps returns the lease store's operations, in call order, with
// room for extra more. A request no server processed had no effect (the
// server records Processed as it acts): it was lost, refused before
// acting, or still in flight when the run ended, and it is not an
// operation, as in the event host, where an operation is a processing.
// It sorts the pending operations' pointers, not the operations (an
// operation is a few hundred bytes), and copies each once.
func (r *recorder) storeOps(extra int) []history.Operation {
	done := make([]*pendingOp, 0, len(r.order))
	for _, p := range r.order {
		if p.processed {
			done = append(done, p)
		}
	}
	slices.SortStableFunc(done, func(p, q *pendingOp) int {
		a, b := &p.op, &q.op
		return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Client, b.Client), cmp.Compare(a.Incarnation, b.Incarnation),
			cmp.Compare(a.ID, b.ID))
	})
	out := make([]history.Operation, len(done), len(done)+extra)
	for i, p := range done {
		out[i] = p.op
	}
	return out
}
