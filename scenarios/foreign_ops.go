package scenarios

import (
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// foreignOps records the operations of an implementation that keeps its
// own messages, from the parts its messages describe (history.Described):
// a request leaving its client is the call, each reply its server sends is
// one processing (one operation: a duplicated request the server ran twice
// is two), and the reply reaching the client is the return. As with
// leasesim's protocol the harness is omniscient: an operation whose reply
// was lost still has its output. Only reads: the run is the same with it.
//
// It shares the recorder's operation table (recorder.addOp), so that an
// implementation that talks to its own server in its own messages and to
// the harness's fenced store in leasesim's has one history.
type foreignOps struct {
	calls map[foreignKey]int32 // by request, into reqs; looked up, never iterated
	reqs  chunked[foreignCall]
	// ops are the operations, each named by one of the recorder's opRecs;
	// chunked, so that a growing run never copies these large records.
	ops chunked[history.Operation]
}

// foreignKey is a request: its client node and incarnation, and the id the
// client gave it.
type foreignKey struct {
	client      sim.NodeID
	incarnation uint64
	id          uint64
}

type foreignCall struct {
	at     history.Time
	input  history.Payload
	server sim.NodeID
	// unreturned are the ops (into recorder.ops) of this request whose reply has
	// not reached the client, oldest first.
	unreturned []int32
}

// sentAny sees a message of an implementation's own protocol leave from
// for to.
func (r *recorder) sentAny(from, to *sim.Node, payload any) {
	d, ok := payload.(history.Described)
	if !ok {
		return
	}
	f := &r.foreign
	p := describe(d)
	now := history.Time(r.w.Now())
	if !p.Reply {
		if f.calls == nil {
			f.calls = make(map[foreignKey]int32)
		}
		key := foreignKey{client: from.ID(), incarnation: from.Incarnation(), id: p.ID}
		if _, seen := f.calls[key]; !seen { // a retransmission keeps its first call
			f.calls[key] = f.reqs.add(foreignCall{at: now, input: p.Payload, server: to.ID()})
		}
		return
	}
	client, known := r.w.Lookup(p.Client)
	if !known || client.ID() != to.ID() {
		return // a reply to someone other than the client it names: not an operation
	}
	i, inc, ok := f.call(to, p.ID)
	if !ok {
		return // not a reply to a recorded request
	}
	c := f.reqs.at(i)
	out := f.ops.add(history.Operation{Client: to.Name(), Incarnation: inc, Server: from.Name(),
		ID: p.ID, Call: c.at, Processed: now, Input: c.input, Output: p.Payload})
	op := r.addOp(opRec{processed: now, ret: history.Never, req: -1, out: out, server: from.ID()})
	if c.input.Kind == kindCheckpoint {
		r.checkpoints = append(r.checkpoints, op)
	}
	c.unreturned = append(c.unreturned, op)
}

// deliveredAny sees a message of an implementation's own protocol reach
// node to.
func (r *recorder) deliveredAny(to *sim.Node, payload any) {
	d, ok := payload.(history.Described)
	if !ok {
		return
	}
	p := describe(d)
	if !p.Reply || p.Client != to.Name() {
		return // a request, or a reply that reached another node than the client it names
	}
	f := &r.foreign
	i, inc, ok := f.call(to, p.ID)
	if !ok || inc != to.Incarnation() || len(f.reqs.at(i).unreturned) == 0 {
		return // a reply that reaches a later incarnation never returns to its caller
	}
	c := f.reqs.at(i)
	r.ops.at(c.unreturned[0]).ret = history.Time(r.w.Now())
	c.unreturned = c.unreturned[1:]
}

// call finds client's request id: its own incarnation's, else the latest
// earlier incarnation's (a server may process a request after its client
// restarted; the operation is still the earlier incarnation's).
func (f *foreignOps) call(client *sim.Node, id uint64) (int32, uint64, bool) {
	for inc := client.Incarnation(); ; inc-- {
		if i, ok := f.calls[foreignKey{client: client.ID(), incarnation: inc, id: id}]; ok {
			return i, inc, true
		}
		if inc == 0 {
			return 0, 0, false
		}
	}
}

// describe asks an implementation's message what it is, behind an
// implementation boundary: Describe is the implementation's code.
func describe(d history.Described) history.Part {
	return d.Describe()
}
