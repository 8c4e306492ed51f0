package checker

import (
	"context"

	"github.com/anishathalye/porcupine"
)

// budgetedCheck decides ops with porcupine within a budget stated in model
// steps, not seconds, so that the verdict is the same on any machine and
// under any load. porcupine v1.3.1 bounds a search only by wall time (its
// context is internal), so each partition is searched on its own, one
// after another, by a model that counts its steps and, once steps are
// spent, refuses every further step: porcupine's search then unwinds at
// once, and the partition is undecided whatever porcupine answers. One
// partition's search runs in one goroutine and steps through the history
// in one order, so the count, and the verdict, are deterministic.
//
// It returns porcupine's verdict over the partitions it decided (Illegal
// if any is), with the operations of the illegal ones and their
// linearization info (searched again for their evidence: each was decided
// within the budget, so this search ends as the first did), and what it
// left undecided.
func budgetedCheck(m porcupine.Model, ops []porcupine.Operation, steps int64) budgeted {
	parts := [][]porcupine.Operation{ops}
	if m.Partition != nil {
		parts = m.Partition(ops)
	}
	step := m.Step
	if step == nil {
		stepCtx := m.StepContext
		step = func(state, input, output any) (bool, any) { return stepCtx(context.Background(), state, input, output) }
	}
	var illegal []porcupine.Operation
	var miss budgetMiss
	for _, part := range parts {
		counted := m
		counted.Partition, counted.PartitionEvent, counted.StepContext = nil, nil, nil
		taken, spent := int64(0), false
		counted.Step = func(state, input, output any) (bool, any) {
			if taken >= steps {
				spent = true
				return false, state
			}
			taken++
			return step(state, input, output)
		}
		ok := porcupine.CheckOperations(counted, part)
		switch {
		case spent:
			miss.partitions++
			miss.ops += len(part)
		case !ok:
			illegal = append(illegal, part...)
		}
	}
	if len(illegal) == 0 {
		return budgeted{verdict: porcupine.Ok, undecided: miss}
	}
	_, info := porcupine.CheckOperationsVerbose(m, illegal, 0)
	return budgeted{verdict: porcupine.Illegal, illegal: illegal, info: info, undecided: miss}
}

// budgeted is what budgetedCheck decided.
type budgeted struct {
	verdict   porcupine.CheckResult // over the partitions decided
	illegal   []porcupine.Operation // the illegal partitions' operations
	info      porcupine.LinearizationInfo
	undecided budgetMiss
}

// budgetMiss counts what a budgeted search left undecided.
type budgetMiss struct {
	partitions, ops int
}
