package checker

import (
	"cmp"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// asProcessed walks partitions of a history's P3 operations in the order
// their servers processed them: the witness that decides nearly every
// resource of a run (a legal processing order lies within the operations'
// intervals). It loads the recorded operations one at a time, by index.
type asProcessed struct {
	h        *history.History
	store    model.Spec      // the lease store's specification
	register model.Spec      // the fenced store's
	model    porcupine.Model // both specifications, routed by operation
	// replayer walks a partition of the store (0) or the register (1) in
	// one order, if its specification has a Replayer.
	replayer [2]model.Replayer
}

func newAsProcessed(h *history.History, store model.Spec) asProcessed {
	p := asProcessed{h: h, store: store, register: model.FencedRegisterSpec()}
	p.model = routedModel(p.store.Model, p.register.Model, p.describeMeta)
	for i, sp := range [2]model.Spec{p.store, p.register} {
		if sp.Replay != nil {
			p.replayer[i] = sp.Replay()
		}
	}
	return p
}

// walker walks one partition in one order, from the initial state: with
// its specification's Replayer if it has one (the same verdicts, no state
// per step), else with the model's Step.
type walker struct {
	r     model.Replayer
	m     *porcupine.Model
	state any
}

// walker returns a walker of a register (reg) or store partition, with r
// if not nil (a Replayer of that specification), else with the
// asProcessed's own Replayer, which a walker at a time may use.
func (p *asProcessed) walker(reg bool, r model.Replayer) walker {
	i := 0
	if reg {
		i = 1
	}
	if r == nil {
		r = p.replayer[i]
	}
	if r == nil {
		return walker{m: &p.model, state: p.model.Init()}
	}
	r.Reset()
	return walker{r: r}
}

// step applies op and reports whether it was legal. The specifications
// read op's fields and keep none of its memory (model's Step and Replayer
// copy what they need into their own inputs), so op may be a variable the
// caller loads the next operation into.
func (w *walker) step(op *history.Operation) bool {
	if w.r != nil {
		return w.r.Step(op, &op.Output)
	}
	var legal bool
	legal, w.state = w.m.Step(w.state, op, &op.Output)
	return legal
}

// p3Ops are the operations of a history that P3 checks.
type p3Ops struct {
	count     int            // how many there are
	idx       []int32        // indices in the history, in their order; nil if not kept (newP3Ops)
	processed []history.Time // when each was processed, parallel to idx
	stores    int            // how many are lease-store operations
	resources int            // how many (server, resource) pairs they span
	// part is each operation's partition, by the specifications' Keys,
	// numbered from 0 to parts-1; nil if a specification has no Key.
	part  []int32
	parts int
}

// newP3Ops counts h's P3 operations and numbers their partitions. If walk
// is nil, it keeps their table (idx, processed, part); otherwise it walks
// them as it loads them (inOrderWalk) and keeps no table. The walk almost
// always witnesses the history, and the table then goes unread: for a
// 500-contender herd it was a third of checking's memory. A history the
// walk does not witness is loaded again, with a table (Linearizability).
func newP3Ops(h *history.History, store, register model.Spec, walk *inOrderWalk) p3Ops {
	n := h.NumOps()
	keyed := store.Key != nil && register.Key != nil
	if walk != nil && !keyed {
		walk.inOrder, walk = false, nil // witnessed decides: no partitions
	}
	var p p3Ops
	if walk == nil {
		// At most a few of the operations are not P3's.
		p = p3Ops{idx: make([]int32, 0, n), processed: make([]history.Time, 0, n)}
		if keyed {
			p.part = make([]int32, 0, n)
		}
	}
	// An operation's cell: its server, resource and partition. There are
	// few, each numbered once by the numberings they are new to.
	type cell struct {
		server, resource, key string
		reg                   bool
	}
	type partKey struct {
		key string
		reg bool
	}
	var cells numbering[cell]
	var servedAt numbering[[2]string]
	var parts numbering[partKey]
	var partOf []int32 // by cell
	var op history.Operation
	for i := range n {
		h.LoadOp(i, &op)
		if !checkedByP3(h, &op) {
			continue
		}
		p.count++
		if walk == nil {
			p.idx = append(p.idx, int32(i))
			p.processed = append(p.processed, op.Processed)
		}
		c := cell{server: op.Server, resource: op.Input.Resource, reg: isRegisterOp(op.Input.Kind)}
		if !c.reg {
			p.stores++
		}
		if keyed {
			if c.reg {
				c.key = register.Key(&op)
			} else {
				c.key = store.Key(&op)
			}
		}
		hint := strHint(c.server) + 3*strHint(c.resource) + 5*strHint(c.key)
		id, isNew := cells.id(c, hint)
		if isNew {
			servedAt.id([2]string{c.server, c.resource}, hint)
			part, _ := parts.id(partKey{c.key, c.reg}, hint)
			partOf = append(partOf, part)
		}
		switch {
		case walk != nil:
			walk.step(partOf[id], &op)
		case keyed:
			p.part = append(p.part, partOf[id])
		}
	}
	p.resources, p.parts = servedAt.len(), parts.len()
	return p
}

// inOrderWalk is witnessed's walk, taken while newP3Ops loads the
// operations, for as long as they come in processing order: a history
// almost always does, and its operations are then loaded once, not twice.
type inOrderWalk struct {
	p       *asProcessed
	walkers []walker // by partition: newP3Ops numbers them as they first come
	last    history.Time
	// inOrder says that every operation came in processing order, and legal
	// that every partition was legal in it; if both hold, the history is
	// witnessed.
	inOrder, legal bool
}

func (p *asProcessed) inOrderWalk() *inOrderWalk {
	return &inOrderWalk{p: p, inOrder: true, legal: true}
}

// step walks op, of partition part.
func (w *inOrderWalk) step(part int32, op *history.Operation) {
	if !w.inOrder {
		return
	}
	if op.Processed < w.last {
		w.inOrder = false // witnessed sorts them
		return
	}
	w.last = op.Processed
	if !w.legal {
		return
	}
	if int(part) == len(w.walkers) {
		w.walkers = append(w.walkers, w.p.walkerFor(op))
	}
	w.legal = w.walkers[part].step(op)
}

// witnessed reports whether every partition of ops is legal in the order
// its server processed it, without building porcupine operations; false
// if a specification has no Key (ops has no partitions), or if some
// partition is not legal as processed (Linearizability's full check then
// decides). The operations are walked once, in processing order (as
// recorded, almost always), each partition with a walker of its own.
func (p *asProcessed) witnessed(ops p3Ops) bool {
	if ops.part == nil {
		return false
	}
	var order []int32 // positions in ops.idx in processing order, if they are not in it
	if !ops.inProcessedOrder() {
		order = sortedIndices(len(ops.idx), ops.compareProcessed)
	}
	walkers := make([]walker, ops.parts)
	started := make([]bool, ops.parts)
	var op history.Operation
	for n := range ops.idx {
		k := n
		if order != nil {
			k = int(order[n])
		}
		g := ops.part[k]
		p.h.LoadOp(int(ops.idx[k]), &op)
		if !started[g] {
			walkers[g], started[g] = p.walkerFor(&op), true
		}
		if !walkers[g].step(&op) {
			return false
		}
	}
	return true
}

// walkerFor returns a walker for the partition whose first operation is
// op, with a Replayer of its own if its specification has one.
func (p *asProcessed) walkerFor(op *history.Operation) walker {
	var r model.Replayer
	if sp := p.specOf(op.Input.Kind); sp.Replay != nil {
		r = sp.Replay()
	}
	return p.walker(isRegisterOp(op.Input.Kind), r)
}

// compareProcessed orders the operations at positions a and b of ops as
// their servers processed them: by processing time, then as recorded.
func (ops *p3Ops) compareProcessed(a, b int32) int {
	return cmp.Or(cmp.Compare(ops.processed[a], ops.processed[b]), cmp.Compare(ops.idx[a], ops.idx[b]))
}

// inProcessedOrder reports whether ops are in the order compareProcessed
// gives.
func (ops *p3Ops) inProcessedOrder() bool {
	for k := 1; k < len(ops.idx); k++ {
		if ops.compareProcessed(int32(k-1), int32(k)) > 0 {
			return false
		}
	}
	return true
}
