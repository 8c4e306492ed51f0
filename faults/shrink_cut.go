package faults

import (
	"slices"
	"time"
)

// cutAfter tries the best schedule without the events after t, the time
// the failing run showed its failure: in a deterministic run, what happens
// later cannot have caused it. One attempt, however long the schedule.
func (k *shrinker) cutAfter(t time.Duration) {
	k.tryWithout(func(e Event) bool { return e.At > t })
}

// removeGroups tries the best schedule without all the events of one kind,
// for each kind in catalogue order, then without all the events that act
// on one node, for each of the nodes in order: the subsets a swarm draw
// enables, one attempt each. Removing any fault changes what follows it,
// so a failure that hinges on timing survives few removals; one that
// survives this removes tens of events at once where delta debugging
// would take one chunk at a time.
func (k *shrinker) removeGroups() {
	for _, ki := range kinds {
		k.tryWithout(func(e Event) bool { return e.Kind == ki.Name })
	}
	for _, n := range k.nodes {
		k.tryWithout(func(e Event) bool { return e.Node == n })
	}
}

// tryWithout tries the best schedule without the events drop matches and
// without the events that then undo nothing; it tries nothing when drop
// matches no event.
func (k *shrinker) tryWithout(drop func(e Event) bool) bool {
	kept := slices.DeleteFunc(slices.Clone(k.best.Events), drop)
	if len(kept) == len(k.best.Events) {
		return false
	}
	c := k.best
	c.Events = dropOrphans(kept)
	return k.try(c)
}
