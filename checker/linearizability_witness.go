package checker

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"
)

// witnessed reports whether the order in which the servers actually
// processed the operations is itself a legal sequential history. If it is,
// the history is linearizable and no search is needed: every operation was
// processed within its own [Call, Return] interval (after the request was
// sent, before the reply arrived), so processing order respects real-time
// order. If it is not, that proves nothing (another order may be legal) and
// the porcupine search decides.
func (l *linHistory) witnessed() bool {
	for _, part := range l.model.Partition(l.ops) {
		order := make([]int, len(part)) // indices into h.Ops, in processing order
		for i, op := range part {
			idx := op.Metadata.(int)
			h := &l.h.Ops[idx]
			if h.Processed < h.Call || (h.Returned() && h.Processed > h.Return) {
				return false // not a valid witness; let the search decide
			}
			order[i] = idx
		}
		// The recorder appends operations as the servers reply, so the
		// history index breaks ties between operations processed at the
		// same instant.
		slices.SortFunc(order, func(a, b int) int {
			return cmp.Or(cmp.Compare(l.h.Ops[a].Processed, l.h.Ops[b].Processed), cmp.Compare(a, b))
		})
		byIndex := make(map[int]porcupine.Operation, len(part)) // looked up, never iterated
		for _, op := range part {
			byIndex[op.Metadata.(int)] = op
		}
		state := l.model.Init()
		for _, idx := range order {
			op := byIndex[idx]
			ok, next := l.model.Step(state, op.Input, op.Output)
			if !ok {
				return false
			}
			state = next
		}
	}
	return true
}
