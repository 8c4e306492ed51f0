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
	Load(i int, op *Operation)
}

// NumOps returns the number of the history's operations.
func (h *History) NumOps() int {
	if h.src != nil {
		return h.src.Len()
	}
	return len(h.Ops)
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
	*op = h.Ops[i]
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
		h.Ops = h.CopyOps()
		h.src = nil
	}
	h.Ops = append(h.Ops, ops...)
}

// SetOps makes ops the history's operations: the history keeps the slice.
func (h *History) SetOps(ops []Operation) {
	h.Ops, h.src = ops, nil
}

// SetOpSource makes src give the history's operations.
func (h *History) SetOpSource(src OpSource) {
	h.Ops, h.src = nil, src
}

// CopyOps returns the history's operations as a new slice.
func (h *History) CopyOps() []Operation {
	ops := make([]Operation, h.NumOps())
	for i := range ops {
		h.LoadOp(i, &ops[i])
	}
	return ops
}
