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
	type entry struct {
		ev    Event
		drawn bool
	}
	entries := make([]entry, 0, len(plan.Events)+len(drawn))
	for _, ev := range plan.Events {
		entries = append(entries, entry{ev: ev})
	}
	for _, ev := range drawn {
		entries = append(entries, entry{ev: ev, drawn: true})
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(a.ev.At, b.ev.At) })
	for {
		plan.Events = plan.Events[:0:0]
		for _, e := range entries {
			plan.Events = append(plan.Events, e.ev)
		}
		err := plan.Validate(nodes)
		var verr *ValidationError
		if err == nil || !errors.As(err, &verr) || verr.Index < 0 {
			return plan, err
		}
		culprit := verr.Index
		if !entries[culprit].drawn {
			// An explicit event contradicts something drawn earlier on the
			// same node: drop the latest such drawn event.
			culprit = -1
			for i := verr.Index - 1; i >= 0; i-- {
				if entries[i].drawn && entries[i].ev.Node == entries[verr.Index].ev.Node {
					culprit = i
					break
				}
			}
			if culprit < 0 {
				return plan, err
			}
		}
		entries = slices.Delete(entries, culprit, culprit+1)
	}
}
