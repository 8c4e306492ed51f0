package checker

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// asProcessed walks partitions of a history's P3 operations in the order
// their servers processed them: the witness that decides nearly every
// resource of a run (a legal processing order lies within the operations'
// intervals). It reads the recorded operations in place, by index.
type asProcessed struct {
	h        *history.History
	store    model.Spec      // the lease store's specification
	register model.Spec      // the fenced store's
	model    porcupine.Model // both specifications, routed by operation
	// replayer walks a partition of the store (0) or the register (1) in
	// one order, if its specification has a Replayer.
	replayer [2]model.Replayer
	scratch  []int32 // indices into h.Ops, for legalAsProcessed
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

// legal reports whether the recorded operations idx (indices into h.Ops,
// one partition) are legal in the order their server processed them: by
// processing time, then as recorded. It sorts idx into that order.
func (p *asProcessed) legal(idx []int32) bool {
	if len(idx) == 0 {
		return true
	}
	ops := p.h.Ops
	slices.SortFunc(idx, func(a, b int32) int { return p.compareProcessed(a, b) })
	w := p.walker(isRegisterOp(ops[idx[0]].Input.Kind), nil)
	for _, i := range idx {
		if !w.step(&ops[i]) {
			return false
		}
	}
	return true
}

// compareProcessed orders recorded operations (indices into h.Ops) as
// their servers processed them: by processing time, then as recorded.
func (p *asProcessed) compareProcessed(a, b int32) int {
	return cmp.Or(cmp.Compare(p.h.Ops[a].Processed, p.h.Ops[b].Processed), cmp.Compare(a, b))
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

// step applies op and reports whether it was legal.
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
	idx       []int32 // into h.Ops, in their order
	stores    int     // how many are lease-store operations
	resources int     // how many (server, resource) pairs they span
	// part is each operation's partition, by the specifications' Keys,
	// numbered from 0 to parts-1; nil if a specification has no Key.
	part  []int32
	parts int
}

func newP3Ops(h *history.History, store, register model.Spec) p3Ops {
	// At most a few of the operations are not P3's.
	p := p3Ops{idx: make([]int32, 0, len(h.Ops))}
	keyed := store.Key != nil && register.Key != nil
	if keyed {
		p.part = make([]int32, 0, len(h.Ops))
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
	for i := range h.Ops {
		op := &h.Ops[i]
		if !checkedByP3(h, op) {
			continue
		}
		p.idx = append(p.idx, int32(i))
		c := cell{server: op.Server, resource: op.Input.Resource, reg: isRegisterOp(op.Input.Kind)}
		if !c.reg {
			p.stores++
		}
		if keyed {
			if c.reg {
				c.key = register.Key(op)
			} else {
				c.key = store.Key(op)
			}
		}
		hint := strHint(c.server) + 3*strHint(c.resource) + 5*strHint(c.key)
		id, isNew := cells.id(c, hint)
		if isNew {
			servedAt.id([2]string{c.server, c.resource}, hint)
			part, _ := parts.id(partKey{c.key, c.reg}, hint)
			partOf = append(partOf, part)
		}
		if keyed {
			p.part = append(p.part, partOf[id])
		}
	}
	p.resources, p.parts = servedAt.len(), parts.len()
	return p
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
	if !slices.IsSortedFunc(ops.idx, p.compareProcessed) {
		order = sortedIndices(len(ops.idx), func(a, b int32) int { return p.compareProcessed(ops.idx[a], ops.idx[b]) })
	}
	walkers := make([]walker, ops.parts)
	started := make([]bool, ops.parts)
	for n := range ops.idx {
		k := n
		if order != nil {
			k = int(order[n])
		}
		op, g := &p.h.Ops[ops.idx[k]], ops.part[k]
		if !started[g] {
			reg := isRegisterOp(op.Input.Kind)
			var r model.Replayer
			if sp := p.specOf(op.Input.Kind); sp.Replay != nil {
				r = sp.Replay()
			}
			walkers[g], started[g] = p.walker(reg, r), true
		}
		if !walkers[g].step(op) {
			return false
		}
	}
	return true
}
