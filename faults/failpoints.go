package faults

import (
	"fmt"
	"slices"
	"strings"
)

// CheckFailpoints reports the first failpoint event of s that names a
// failpoint not in known (the names node code marks), as a
// *ValidationError naming the event, its kind and the field, and listing
// the known names: a misspelled failpoint ("before-wirte") would be armed
// and never reached, and the run would end unknown for a reason that is
// the schedule's, not the implementation's.
func (s Schedule) CheckFailpoints(known []string) error {
	for i, e := range s.Events {
		if e.Kind != KindFailpoint || e.Failpoint == "" || slices.Contains(known, e.Failpoint) {
			continue
		}
		names := slices.Clone(known)
		slices.Sort(names)
		return &ValidationError{Index: i, Kind: e.Kind, Field: "failpoint",
			Err: fmt.Errorf("unknown failpoint %q (known: %s)", e.Failpoint, strings.Join(slices.Compact(names), ", "))}
	}
	return nil
}
