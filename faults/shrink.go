package faults

import (
	"cmp"
	"reflect"
	"slices"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// Shrinking bounds and precisions.
const (
	// DefaultShrinkAttempts is how many candidates Shrink tests when
	// ShrinkOptions.MaxAttempts is zero. Each attempt is one run of the
	// caller's predicate, typically a whole simulation.
	DefaultShrinkAttempts = 500
	// DefaultShrinkResolution is the precision to which Shrink shortens
	// durations and moves times when ShrinkOptions.Resolution is zero.
	DefaultShrinkResolution = time.Millisecond
	// shrinkDriftResolutionPPB is the precision, in parts per billion, to
	// which Shrink reduces a drift: 10 ppm.
	shrinkDriftResolutionPPB = 10_000
	// shrinkRoundsMax bounds the rounds of removing then shortening; each
	// round that changes nothing ends the search earlier.
	shrinkRoundsMax = 8
)

// ShrinkOptions configures Shrink.
type ShrinkOptions struct {
	// Nodes are the node names every candidate must Validate against; the
	// scenario's nodes. Nil means the nodes the schedule itself names.
	Nodes []string
	// MaxAttempts bounds the calls to the predicate. Zero means
	// DefaultShrinkAttempts.
	MaxAttempts int
	// Resolution is the precision to which durations are shortened and
	// windows closed earlier. Zero means DefaultShrinkResolution.
	Resolution time.Duration
	// Observed is the true time at which the failing run showed the
	// failure (a checker's earliest violation), if the caller knows it;
	// zero means unknown. Shrink first tries the schedule without the
	// events after it.
	Observed time.Duration
}

// ShrinkStats says what Shrink did.
type ShrinkStats struct {
	Attempts  int  // calls to the predicate
	Accepted  int  // candidates that still failed and replaced the best so far
	Exhausted bool // the search stopped at MaxAttempts, not at a fixed point
}

// Shrink cuts a failing schedule s down to a smaller one for which fails
// still holds. It assumes fails(s) holds and never calls fails on s itself.
//
// It first makes coarse cuts, one attempt each, that delta debugging would
// take many attempts to make:
//
//   - Without the events after opts.Observed, when the caller knows when
//     the failure showed: in a deterministic run they cannot have caused
//     it, so this nearly always holds; on swarm draws it drops about two
//     events in five.
//   - Without all the events of one kind, for each kind, then without all
//     the events on one node, for each node. A run is chaotic: removing a
//     fault changes the timing of everything after it, so a failure that
//     hinges on timing survives one removal in a few, whatever its size,
//     and big removals are worth their attempt.
//
// Then it works in rounds, each first removing events, then shrinking what
// remains, until a round changes nothing or the attempts run out. The
// first rounds only try each magnitude and window at its smallest, so
// that the attempts go to removing events first; once such a round
// changes nothing, the rounds bisect as well:
//
//   - Removing is delta debugging over the events in time order: chunks of
//     half the schedule, then quarters, down to single events. Removing an
//     event also removes the events that only undo it: a crash takes its
//     restart along, a partition its heal, a link change its link-reset, a
//     drift its return to zero.
//   - Shrinking halves its way (bisection, to Resolution) to the smallest
//     pause or failpoint-pause duration, wall-clock step and drift
//     magnitude, link latency and reorder delay that still fail; it tries
//     loss, duplication and reordering probabilities of zero; and it moves
//     every heal, restart, link-reset and drift-back-to-zero as early after
//     the fault it ends as still fails, shortening the window.
//
// Every candidate is validated against opts.Nodes first; invalid ones are
// skipped without calling fails. The result is sorted by time (stably, so
// it is the same schedule) and validates. Shrink is deterministic: the same
// schedule, options and predicate give the same result.
func Shrink(s Schedule, fails func(Schedule) bool, opts ShrinkOptions) (Schedule, ShrinkStats) {
	k := &shrinker{fails: fails, nodes: opts.Nodes, attemptsMax: opts.MaxAttempts, res: opts.Resolution}
	if k.attemptsMax <= 0 {
		k.attemptsMax = DefaultShrinkAttempts
	}
	if k.res <= 0 {
		k.res = DefaultShrinkResolution
	}
	if k.nodes == nil {
		k.nodes = s.nodeNames()
	}
	k.best = s.clone()
	k.best.Events = sortedByTime(k.best.Events)
	if opts.Observed > 0 {
		k.cutAfter(opts.Observed)
	}
	k.removeGroups()
	k.quick = true
	for range shrinkRoundsMax {
		before := k.stats.Accepted
		k.removeEvents()
		k.shrinkEvents()
		k.best.Events = sortedByTime(k.best.Events)
		if k.stats.Exhausted || k.stats.Accepted == before && !k.quick {
			break
		}
		if k.stats.Accepted == before {
			k.quick = false
		}
	}
	return k.best, k.stats
}

// shrinker holds the best failing schedule found so far.
type shrinker struct {
	fails       func(Schedule) bool
	nodes       []string
	attemptsMax int
	res         time.Duration
	best        Schedule
	stats       ShrinkStats
	// quick makes bisect try only the smallest value, so that the first
	// rounds spend their attempts on removing events.
	quick bool
}

// try tests candidate c. If c is valid, differs from the best and still
// fails, it becomes the best and try reports true.
func (k *shrinker) try(c Schedule) bool {
	if k.stats.Attempts >= k.attemptsMax {
		k.stats.Exhausted = true
		return false
	}
	if c.Validate(k.nodes) != nil || reflect.DeepEqual(c, k.best) {
		return false
	}
	k.stats.Attempts++
	if !k.fails(c.clone()) { // a clone: the predicate may keep or change what it gets
		return false
	}
	k.best = c
	k.stats.Accepted++
	return true
}

// removeEvents is delta debugging: it removes chunks of events, halving
// the chunk size whenever no chunk can go, down to single events.
func (k *shrinker) removeEvents() {
	chunks := 2
	for len(k.best.Events) > 0 && !k.stats.Exhausted {
		n := len(k.best.Events)
		chunks = min(chunks, n)
		size := (n + chunks - 1) / chunks
		removed := false
		for start := 0; start < n && !removed; start += size {
			removed = k.try(k.without(start, min(start+size, n)))
		}
		switch {
		case removed:
			chunks = max(chunks-1, 2)
		case chunks >= n:
			return
		default:
			chunks = min(2*chunks, n)
		}
	}
}

// without returns the best schedule without the events [from, to) and
// without the events that then undo nothing.
func (k *shrinker) without(from, to int) Schedule {
	c := k.best
	c.Events = dropOrphans(slices.Concat(k.best.Events[:from], k.best.Events[to:]))
	return c
}

// dropOrphans removes, from events in time order, the ones that end a fault
// no earlier event started: a heal with no partition, a link-reset with no
// link change, a restart of a node that is up, a drift back to zero of a
// node whose drift is zero.
func dropOrphans(events []Event) []Event {
	partitioned, linked := false, false
	state := make(map[string]lifeState) // looked up, never iterated
	drifting := make(map[string]bool)   // looked up, never iterated
	out := make([]Event, 0, len(events))
	for _, e := range events {
		keep := true
		switch e.Kind {
		case KindPartition, KindPartitionOneWay, KindIsolate, KindBridge, KindStallConns:
			partitioned = true
		case KindHeal:
			keep, partitioned = partitioned, false
		case KindLink:
			linked = true
		case KindLinkReset:
			keep, linked = linked, false
		case KindDrift:
			keep = e.Drift != 0 || drifting[e.Node]
			drifting[e.Node] = e.Drift != 0
		case KindCrash:
			if state[e.Node] == alive {
				state[e.Node] = down
			}
		case KindRestart:
			keep = state[e.Node] != alive
			if state[e.Node] == down {
				state[e.Node] = alive
			}
		case KindFailpoint:
			if e.Action == ActionCrash {
				state[e.Node] = unknown
			}
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

// shrinkEvents shrinks every remaining event's magnitudes and windows. It
// leaves the events where they are in the slice, so indices stay valid;
// Shrink sorts them by time afterwards.
func (k *shrinker) shrinkEvents() {
	res := int64(k.res)
	for i := 0; i < len(k.best.Events) && !k.stats.Exhausted; i++ {
		switch e := k.best.Events[i]; {
		case e.Kind == KindPause || e.Kind == KindFailpoint && e.Action == ActionPause:
			k.bisect(i, res, int64(e.Duration), res, func(c *Event, v int64) { c.Duration = time.Duration(v) })
		case e.Kind == KindStep:
			sign := time.Duration(1)
			if e.Step < 0 {
				sign = -1
			}
			k.bisect(i, res, int64(e.Step*sign), res, func(c *Event, v int64) { c.Step = time.Duration(v) * sign })
		case e.Kind == KindDrift && e.Drift != 0:
			sign := 1.0
			if e.Drift < 0 {
				sign = -1
			}
			ppb := int64(e.Drift * sign * 1e9)
			k.bisect(i, shrinkDriftResolutionPPB, ppb, shrinkDriftResolutionPPB, func(c *Event, v int64) {
				c.Drift = sign * float64(v) / 1e9
			})
		case e.Kind == KindLink && e.Link != nil:
			k.shrinkLink(i)
		}
		if endsWindow(k.best.Events[i]) {
			k.closeEarlier(i)
		}
	}
}

// shrinkLink tries a link change without loss, duplication, reordering and
// reorder delay, then shortens its latency: the maximum, and the minimum
// with it when the maximum falls below it.
func (k *shrinker) shrinkLink(i int) {
	zero := []func(l *sim.LinkConfig){
		func(l *sim.LinkConfig) { l.Loss = 0 },
		func(l *sim.LinkConfig) { l.Duplicate = 0 },
		func(l *sim.LinkConfig) { l.Reorder, l.ReorderDelay = 0, 0 },
	}
	for _, z := range zero {
		k.try(k.withEvent(i, func(c *Event) { z(c.Link) }))
	}
	latency := k.best.Events[i].Link.Latency
	k.bisect(i, 0, int64(latency.Max), int64(k.res), func(c *Event, v int64) {
		c.Link.Latency.Max = time.Duration(v)
		c.Link.Latency.Min = min(c.Link.Latency.Min, time.Duration(v))
	})
}

// endsWindow reports whether e undoes an earlier fault: a heal, a restart,
// a link-reset, or a drift back to zero.
func endsWindow(e Event) bool {
	switch e.Kind {
	case KindHeal, KindRestart, KindLinkReset:
		return true
	case KindDrift:
		return e.Drift == 0
	}
	return false
}

// opens reports whether e starts a fault that closer undoes.
func opens(e, closer Event) bool {
	switch closer.Kind {
	case KindHeal:
		return e.Kind == KindPartition || e.Kind == KindPartitionOneWay || e.Kind == KindIsolate || e.Kind == KindBridge ||
			e.Kind == KindStallConns
	case KindRestart:
		return e.Node == closer.Node && (e.Kind == KindCrash || e.Kind == KindFailpoint && e.Action == ActionCrash)
	case KindLinkReset:
		return e.Kind == KindLink
	case KindDrift:
		return e.Kind == KindDrift && e.Node == closer.Node && e.Drift != 0
	}
	return false
}

// closeEarlier moves event i, which ends a window, as early after the
// latest fault it undoes as still fails.
func (k *shrinker) closeEarlier(i int) {
	closer := k.best.Events[i]
	opened, found := time.Duration(0), false
	for j, e := range k.best.Events {
		before := e.At < closer.At || e.At == closer.At && j < i
		if before && opens(e, closer) && (!found || e.At >= opened) {
			opened, found = e.At, true
		}
	}
	if !found {
		return
	}
	k.bisect(i, int64(opened)+1, int64(closer.At), int64(k.res), func(c *Event, v int64) { c.At = time.Duration(v) })
}

// bisect finds the smallest value in [lo, hi] for a field of event i that
// still fails, to within res, where hi is the field's current value and set
// writes a value into a copy of the event. It tries lo first: often the
// magnitude does not matter at all.
func (k *shrinker) bisect(i int, lo, hi, res int64, set func(c *Event, v int64)) {
	build := func(v int64) Schedule { return k.withEvent(i, func(c *Event) { set(c, v) }) }
	if hi <= lo || k.try(build(lo)) || k.quick {
		return
	}
	for hi-lo > res && !k.stats.Exhausted {
		mid := lo + (hi-lo)/2
		if k.try(build(mid)) {
			hi = mid
		} else {
			lo = mid
		}
	}
}

// withEvent returns the best schedule with event i replaced by a changed
// copy. The copy's Link is its own, so set may change it.
func (k *shrinker) withEvent(i int, set func(c *Event)) Schedule {
	c := k.best
	c.Events = slices.Clone(k.best.Events)
	e := c.Events[i]
	if e.Link != nil {
		l := *e.Link
		e.Link = &l
	}
	set(&e)
	c.Events[i] = e
	return c
}

// clone returns a copy of s that shares no memory with it.
func (s Schedule) clone() Schedule {
	c := s
	c.Events = slices.Clone(s.Events)
	for i, e := range c.Events {
		if e.Link != nil {
			l := *e.Link
			c.Events[i].Link = &l
		}
		if e.Groups != nil {
			c.Events[i].Groups = make([][]string, len(e.Groups))
			for j, g := range e.Groups {
				c.Events[i].Groups[j] = slices.Clone(g)
			}
		}
	}
	return c
}

// nodeNames returns the node names s mentions, sorted.
func (s Schedule) nodeNames() []string {
	var names []string
	for _, e := range s.Events {
		names = append(names, e.Node, e.From, e.To, e.Bridge)
		for _, g := range e.Groups {
			names = append(names, g...)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return slices.DeleteFunc(names, func(n string) bool { return n == "" || n == AnyNode })
}

// sortedByTime returns events stably sorted by time: the order in which
// they act, so the same schedule.
func sortedByTime(events []Event) []Event {
	out := slices.Clone(events)
	slices.SortStableFunc(out, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	return out
}
