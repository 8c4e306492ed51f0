package scenarios

import (
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
)

// recordedOps are a run's operations as the recorder kept them while the
// run went, handed to the history when it stops (history.OpSource): an
// operation is an opRec of 32 bytes and its request's call, and a message
// is a few bytes (recorder_msg.go), where a history.Operation is 576
// bytes, most of them pointers. Load builds an operation when a reader
// asks for it, in the reader's own variable, which stays in cache.
//
// Building every operation once the run had stopped cost the largest runs
// a quarter of their time, more per operation the larger the run: a table
// of millions of 576-byte operations fits in no cache, and it was cleared,
// written and read back from memory, and marked by the collector.
type recordedOps struct {
	opTables
	foreign chunked[history.Operation] // an implementation's own protocol's operations (foreign_ops.go)
	names   []string                   // the run's node names, by id
	text    string                     // msgs.text, as one string that values and states are cut from
}

// opTables are the recorder's tables that its operations are built from.
// Small ones are handed on to a later run once the source is unreachable
// (recorder_scratch.go).
type opTables struct {
	ops      chunked[opRec]
	requests chunked[call]
	msgs     msgTable
}

// Len returns the number of operations.
func (s *recordedOps) Len() int { return int(s.ops.n) }

// Load sets *op to operation i.
func (s *recordedOps) Load(i int, op *history.Operation) {
	rec := s.ops.at(int32(i))
	if rec.req < 0 {
		*op = *s.foreign.at(rec.out)
		op.Return = rec.ret
		return
	}
	c := s.requests.at(rec.req)
	inc, id := leasewire.SplitReqID(c.reqID)
	*op = history.Operation{Server: s.names[rec.server], Client: s.names[c.client], Processed: rec.processed,
		Call: c.at, Return: rec.ret, Incarnation: inc, ID: id}
	s.msgs.payloadInto(&op.Input, c.in, s.text)
	s.msgs.payloadInto(&op.Output, rec.out, s.text)
}

// LoadHead sets *head to operation i's head (history.History.LoadOpHead).
func (s *recordedOps) LoadHead(i int, head *history.OpHead) {
	rec := s.ops.at(int32(i))
	if rec.req < 0 {
		*head = s.foreign.at(rec.out).Head()
		head.Return = rec.ret
		return
	}
	c := s.requests.at(rec.req)
	inc, id := leasewire.SplitReqID(c.reqID)
	*head = history.OpHead{Server: s.names[rec.server], Client: s.names[c.client], Processed: rec.processed,
		Call: c.at, Return: rec.ret, Incarnation: inc, ID: id}
	head.Kind, head.Resource, _, _ = s.msgs.head(c.in)
	head.Reply, _, head.Err, head.OK = s.msgs.head(rec.out)
}
