package history

import "iter"

// OpSource gives a history's operations on demand, from a producer's own
// compact records, so that a run of millions of operations need not hold
// each one as an Operation (hundreds of bytes, most of them pointers)
// while it is checked. A producer with few operations appends them instead
// (History.AppendOp).
type OpSource interface {
	// Len is the number of operations.
	Len() int
	// Load sets *op to operation i, 0 <= i < Len(), overwriting all of it.
	// It may set op's slices (Payload.Keys, Msg) to ones it shares with
	// other loads: the caller reads them and does not change them.
	Load(i int, op *Operation)
}

// OpHeadSource is an OpSource that loads an operation's head alone
// (History.LoadOpHead) more cheaply than all of it.
type OpHeadSource interface {
	OpSource
	// LoadHead sets *head to operation i's head.
	LoadHead(i int, head *OpHead)
}

// OpHead is what a pass over every operation reads of each to tell what it
// is, and to choose the few it loads whole (History.LoadOpHead): a quarter
// of an Operation, with none of its payloads' other fields.
type OpHead struct {
	Server, Client          string
	Incarnation, ID         uint64
	Call, Processed, Return Time
	// Kind and Resource are the input's; Reply, Err and OK are the
	// output's Kind, Err and OK.
	Kind, Resource, Reply, Err string
	OK                         bool
}

// Returned reports whether the reply reached the client.
func (h *OpHead) Returned() bool { return h.Return != Never }

// NumOps returns the number of the history's operations.
func (h *History) NumOps() int {
	if h.src != nil {
		return h.src.Len()
	}
	return len(h.ops)
}

// Op returns operation i, 0 <= i < NumOps(): a copy, which the caller may
// keep and change.
func (h *History) Op(i int) Operation {
	var op Operation
	h.LoadOp(i, &op)
	return op
}

// LoadOp sets *op to operation i, 0 <= i < NumOps(): a loop that reads
// many operations loads each into the same variable.
func (h *History) LoadOp(i int, op *Operation) {
	if h.src != nil {
		h.src.Load(i, op)
		return
	}
	*op = h.ops[i]
}

// LoadOpHead sets *head to the head of operation i, 0 <= i < NumOps(). A
// pass over every operation that reads only heads, or that reads them to
// choose the few operations it loads whole, loads heads: a source builds
// them for a fraction of the cost.
func (h *History) LoadOpHead(i int, head *OpHead) {
	if s, ok := h.src.(OpHeadSource); ok {
		s.LoadHead(i, head)
		return
	}
	if h.src != nil {
		var op Operation
		h.src.Load(i, &op)
		*head = op.Head()
		return
	}
	*head = h.ops[i].Head()
}

// Head returns o's head (History.LoadOpHead).
func (o *Operation) Head() OpHead {
	return OpHead{Server: o.Server, Client: o.Client, Incarnation: o.Incarnation, ID: o.ID, Call: o.Call,
		Processed: o.Processed, Return: o.Return, Kind: o.Input.Kind, Resource: o.Input.Resource,
		Reply: o.Output.Kind, Err: o.Output.Err, OK: o.Output.OK}
}

// AllOps yields the operations with their indices, in order. The operation
// yielded is the loop's own copy.
func (h *History) AllOps() iter.Seq2[int, Operation] {
	return func(yield func(int, Operation) bool) {
		var op Operation
		for i := range h.NumOps() {
			h.LoadOp(i, &op)
			if !yield(i, op) {
				return
			}
		}
	}
}

// AppendOp adds operations after the history's last.
func (h *History) AppendOp(ops ...Operation) {
	if h.src != nil {
		h.ops = h.CopyOps()
		h.src = nil
	}
	h.ops = append(h.ops, ops...)
}

// SetOps makes ops the history's operations: the history keeps the slice.
func (h *History) SetOps(ops []Operation) {
	h.ops, h.src = ops, nil
}

// SetOpSource makes src give the history's operations.
func (h *History) SetOpSource(src OpSource) {
	h.ops, h.src = nil, src
}

// CopyOps returns the history's operations as a new slice.
func (h *History) CopyOps() []Operation {
	ops := make([]Operation, h.NumOps())
	for i := range ops {
		h.LoadOp(i, &ops[i])
	}
	return ops
}

// OpSource returns the source that gives the history's operations, or nil
// if the history holds them itself.
func (h *History) OpSource() OpSource { return h.src }
