package faults

import (
	"cmp"
	"errors"
	"slices"
)

// Merge adds drawn events (a nemesis's draw) to an explicit schedule, in
// time order, and validates the result against nodes. A drawn event that
// contradicts the plan (crashing a node the explicit schedule has already
// crashed, say) is dropped; an invalid explicit event is an error.
//
// Merge takes drawn over: it may reorder it and return its array.
func Merge(plan Schedule, drawn []Event, nodes []string) (Schedule, error) {
	var isDrawn []bool
	plan.Events, isDrawn = merged(plan.Events, drawn)
	for {
		err := plan.Validate(nodes)
		var verr *ValidationError
		if err == nil || !errors.As(err, &verr) || verr.Index < 0 {
			return plan, err
		}
		culprit := verr.Index
		if !isDrawn[culprit] {
			// An explicit event contradicts something drawn earlier on the
			// same node: drop the latest such drawn event.
			culprit = -1
			for i := verr.Index - 1; i >= 0; i-- {
				if isDrawn[i] && plan.Events[i].Node == plan.Events[verr.Index].Node {
					culprit = i
					break
				}
			}
			if culprit < 0 {
				return plan, err
			}
		}
		plan.Events = slices.Delete(plan.Events, culprit, culprit+1)
		isDrawn = slices.Delete(isDrawn, culprit, culprit+1)
	}
}

// merged returns the explicit and drawn events in a stable time order
// (explicit first among equals), in an array that is not explicit's (the
// caller's schedule), and which of them are drawn.
func merged(explicit, drawn []Event) ([]Event, []bool) {
	byAt := func(a, b Event) int { return cmp.Compare(a.At, b.At) }
	isDrawn := make([]bool, len(explicit)+len(drawn))
	if len(explicit) == 0 { // a nemesis's draw alone: sorted already, as a rule
		for i := range isDrawn {
			isDrawn[i] = true
		}
		slices.SortStableFunc(drawn, byAt)
		if len(drawn) == 0 {
			drawn = explicit[:0:0] // an empty plan stays as it came (nil or not)
		}
		return drawn, isDrawn
	}
	// Sort indices rather than the events themselves (large structs); an
	// index of len(explicit) or more is drawn.
	at := func(i int) int64 {
		if i < len(explicit) {
			return int64(explicit[i].At)
		}
		return int64(drawn[i-len(explicit)].At)
	}
	order := make([]int, len(isDrawn))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(at(a), at(b)) })
	events := make([]Event, len(order))
	for k, i := range order {
		if i < len(explicit) {
			events[k] = explicit[i]
		} else {
			events[k], isDrawn[k] = drawn[i-len(explicit)], true
		}
	}
	return events, isDrawn
}
