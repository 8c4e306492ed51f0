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
	slices.SortFunc(idx, func(a, b int32) int {
		return cmp.Or(cmp.Compare(ops[a].Processed, ops[b].Processed), cmp.Compare(a, b))
	})
	// A partition holds one model's operations: its Replayer, if it has
	// one, walks them with the same verdicts and no state per step.
	reg := 0
	if isRegisterOp(ops[idx[0]].Input.Kind) {
		reg = 1
	}
	if r := p.replayer[reg]; r != nil {
		r.Reset()
		for _, i := range idx {
			if !r.Step(&ops[i], &ops[i].Output) {
				return false
			}
		}
		return true
	}
	state := p.model.Init()
	for _, i := range idx {
		var legal bool
		if legal, state = p.model.Step(state, &ops[i], &ops[i].Output); !legal {
			return false
		}
	}
	return true
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
// decides).
func (p *asProcessed) witnessed(ops p3Ops) bool {
	if ops.part == nil {
		return false
	}
	sizes := make([]int32, ops.parts) // per partition
	for _, g := range ops.part {
		sizes[g]++
	}
	// A counting sort gathers each partition's operations, in their order.
	starts, total := make([]int32, len(sizes)+1), int32(0)
	for g, n := range sizes {
		starts[g], total = total, total+n
	}
	starts[len(sizes)] = total
	next := sizes // reused: where each partition's next operation goes
	copy(next, starts)
	byPart := make([]int32, total)
	for k, i := range ops.idx {
		byPart[next[ops.part[k]]] = i
		next[ops.part[k]]++
	}
	for g := range len(starts) - 1 {
		if !p.legal(byPart[starts[g]:starts[g+1]]) {
			return false
		}
	}
	return true
}
