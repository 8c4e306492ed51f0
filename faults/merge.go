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
func Merge(plan Schedule, drawn []Event, nodes []string) (Schedule, error) {
	// order lists the events, explicit then drawn, in a stable time order;
	// an index of len(plan.Events) or more is drawn.
	explicit := len(plan.Events)
	at := func(i int) int64 {
		if i < explicit {
			return int64(plan.Events[i].At)
		}
		return int64(drawn[i-explicit].At)
	}
	order := make([]int, explicit+len(drawn))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(at(a), at(b)) })
	events := plan.Events[:0:0] // never plan.Events' array: it is the caller's
	if len(order) > 0 {
		events = make([]Event, len(order))
	}
	isDrawn := make([]bool, len(order))
	for k, i := range order {
		if i < explicit {
			events[k] = plan.Events[i]
		} else {
			events[k], isDrawn[k] = drawn[i-explicit], true
		}
	}
	plan.Events = events
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
