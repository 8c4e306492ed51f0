package explore

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/faults"
)

// Bounds of a mutation.
const (
	// stackMax is the most mutations applied to one parent.
	stackMax = 3
	// tries is how many mutated candidates are built before giving up on
	// one that passes faults.Schedule.Validate.
	tries = 8
	// eventsMax bounds a mutated schedule's events. A swarm draw may hold
	// hundreds, so no candidate from such a parent passes, and the run is
	// a fresh draw instead; letting those parents grow by a few events was
	// measured and found most of the bugs later (docs/explore.md).
	eventsMax = 200
	// addMax is the most events taken from one nemesis draw.
	addMax = 3
	// edgePercent is how far from a boundary an edge-biased duration lands, as a
	// fraction (2%, as the nemesis draws).
	edgePercent = 2
)

// mutator changes schedules with the scenario's own vocabulary: its
// nodes, its nemesis (drawn for new events, or the host's draws the
// search ran), its boundaries, and the failpoints that mark protocol
// moments.
type mutator struct {
	rng     *rand.Rand
	voc     Vocabulary
	draws   [][]faults.Event // the fresh draws run, when voc.Draw is nil
	moments *momentCounts    // the arm's runs' protocol moments, for aim
}

func newMutator(v Vocabulary, rng *rand.Rand, mo *momentCounts) *mutator {
	return &mutator{rng: rng, voc: v, moments: mo}
}

// drawn keeps the events of a fresh draw the search ran, for add, when the
// host has no nemesis to draw from here.
func (m *mutator) drawn(s faults.Schedule) {
	if m.voc.Draw == nil && len(s.Events) > 0 {
		m.draws = append(m.draws, s.Events)
	}
}

// draw returns fresh fault events: the nemesis's, or one of the host's
// draws the search ran.
func (m *mutator) draw() []faults.Event {
	if m.voc.Draw != nil {
		return m.voc.Draw(m.rng)
	}
	if len(m.draws) == 0 {
		return nil
	}
	return m.draws[m.rng.IntN(len(m.draws))]
}

// op is one mutation: it changes in in place and reports whether it
// could apply.
type op struct {
	name  string
	apply func(m *mutator, in *Input, other *Input) bool
}

// ops are the mutations, drawn uniformly.
var ops = []op{
	{"add", (*mutator).add},
	{"remove", (*mutator).remove},
	{"shift", (*mutator).shift},
	{"stretch", (*mutator).stretch},
	{"node", (*mutator).node},
	{"aim", (*mutator).aim},
	{"drift", (*mutator).drift},
	{"reseed", (*mutator).reseed},
	{"splice", (*mutator).splice},
}

// mutate returns a valid mutation of parent (splicing with other, when
// given), named by the mutations applied, or false when none of tries
// candidates was valid.
func (m *mutator) mutate(parent Input, other *Input, drawSeed func() uint64) (Input, string, bool) {
	for range tries {
		in := Input{Seed: parent.Seed, Schedule: parent.Schedule}
		in.Schedule.Events = slices.Clone(parent.Schedule.Events)
		var names []string
		for range 1 + m.rng.IntN(stackMax) {
			o := ops[m.rng.IntN(len(ops))]
			if o.name == "reseed" {
				in.Seed = drawSeed()
				names = append(names, o.name)
				continue
			}
			if o.apply(m, &in, other) {
				names = append(names, o.name)
			}
		}
		slices.SortStableFunc(in.Schedule.Events, func(a, b faults.Event) int { return cmp.Compare(a.At, b.At) })
		if len(names) == 0 || len(in.Schedule.Events) > eventsMax || in.Schedule.Validate(m.voc.Nodes) != nil {
			continue
		}
		return in, strings.Join(names, "+"), true
	}
	return Input{}, "", false
}

// add appends one to addMax consecutive events of a fresh draw.
func (m *mutator) add(in *Input, _ *Input) bool {
	drawn := m.draw()
	if len(drawn) == 0 {
		return false
	}
	i := m.rng.IntN(len(drawn))
	j := min(len(drawn), i+1+m.rng.IntN(addMax))
	for _, e := range drawn[i:j] {
		if e.At < in.Schedule.HealAt {
			in.Schedule.Events = append(in.Schedule.Events, e)
		}
	}
	return true
}

// remove deletes one event; a crash takes its restart with it.
func (m *mutator) remove(in *Input, _ *Input) bool {
	ev := in.Schedule.Events
	if len(ev) == 0 {
		return false
	}
	i := m.rng.IntN(len(ev))
	if ev[i].Kind == faults.KindCrash {
		if j := undoOf(ev, i, faults.KindRestart); j >= 0 {
			ev = slices.Delete(ev, j, j+1)
		}
	}
	in.Schedule.Events = slices.Delete(ev, i, i+1)
	return true
}

// undoOf returns the index of the first event of kind after ev[i] on the
// same node, or -1.
func undoOf(ev []faults.Event, i int, kind faults.Kind) int {
	for j := i + 1; j < len(ev); j++ {
		if ev[j].Kind == kind && ev[j].Node == ev[i].Node {
			return j
		}
	}
	return -1
}

// shift moves one event in time: next to another event (an
// interleaving), or by up to a tenth of the fault phase either way.
func (m *mutator) shift(in *Input, _ *Input) bool {
	ev := in.Schedule.Events
	if len(ev) == 0 {
		return false
	}
	i := m.rng.IntN(len(ev))
	var at time.Duration
	if m.rng.IntN(2) == 0 {
		near := ev[m.rng.IntN(len(ev))].At
		at = near + time.Duration(m.rng.Int64N(int64(2*time.Second))) - time.Second
	} else {
		span := int64(in.Schedule.HealAt / 10)
		at = ev[i].At + time.Duration(m.rng.Int64N(2*span+1)-span)
	}
	ev[i].At = max(0, min(at, in.Schedule.HealAt-time.Millisecond))
	return true
}

// stretch changes the duration of a pause or a failpoint's pause: doubled,
// halved, or just below or above one of the lease's boundaries.
func (m *mutator) stretch(in *Input, _ *Input) bool {
	var idx []int
	for i, e := range in.Schedule.Events {
		if e.Duration > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return false
	}
	e := &in.Schedule.Events[idx[m.rng.IntN(len(idx))]]
	switch m.rng.IntN(3) {
	case 0:
		e.Duration *= 2
	case 1:
		e.Duration /= 2
	default:
		e.Duration = m.edgeDuration()
	}
	e.Duration = max(time.Millisecond, min(e.Duration, m.voc.PauseMax))
	return true
}

// edgeDuration draws a duration within edgePercent of one of the
// nemesis's boundaries.
func (m *mutator) edgeDuration() time.Duration {
	if len(m.voc.Boundaries) == 0 {
		return time.Duration(1 + m.rng.Int64N(int64(m.voc.PauseMax)))
	}
	b := int64(m.voc.Boundaries[m.rng.IntN(len(m.voc.Boundaries))])
	span := b * edgePercent / 100
	return time.Duration(max(1, b+m.rng.Int64N(2*span+1)-span))
}

// node moves a process fault to another target; a crash takes its
// restart along. A role is never given a crash.
func (m *mutator) node(in *Input, _ *Input) bool {
	ev := in.Schedule.Events
	var idx []int
	for i, e := range ev {
		if e.Node != "" && e.Kind != faults.KindRestart && len(m.voc.Targets) > 1 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return false
	}
	i := idx[m.rng.IntN(len(idx))]
	to := m.voc.Targets[m.rng.IntN(len(m.voc.Targets))]
	if to == ev[i].Node || (faults.IsRole(to) && crashes(ev[i])) {
		return false
	}
	if ev[i].Kind == faults.KindCrash {
		if j := undoOf(ev, i, faults.KindRestart); j >= 0 {
			ev[j].Node = to
		}
	}
	ev[i].Node = to
	return true
}

// crashes reports whether e crashes its node.
func crashes(e faults.Event) bool {
	return e.Kind == faults.KindCrash || (e.Kind == faults.KindFailpoint && e.Action == faults.ActionCrash)
}

// aim arms a failpoint at a protocol moment: it turns a pause into a
// pause at the failpoint (or retargets a failpoint event), or adds a new
// failpoint event at a random instant, pausing near a boundary or
// crashing.
func (m *mutator) aim(in *Input, _ *Input) bool {
	if in.Schedule.HealAt == 0 {
		return false
	}
	ev := in.Schedule.Events
	var idx []int
	for i, e := range ev {
		if e.Kind == faults.KindPause || e.Kind == faults.KindFailpoint {
			idx = append(idx, i)
		}
	}
	if len(idx) > 0 && m.rng.IntN(2) == 0 {
		e := &ev[idx[m.rng.IntN(len(idx))]]
		fp := m.moment([]string{e.Node}).Failpoint
		if e.Kind == faults.KindPause {
			*e = faults.Event{At: e.At, Kind: faults.KindFailpoint, Node: e.Node, Failpoint: fp,
				Action: faults.ActionPause, Duration: e.Duration}
		} else {
			e.Failpoint = fp
		}
		return true
	}
	mo := m.moment(m.voc.Targets)
	e := faults.Event{At: time.Duration(m.rng.Int64N(int64(in.Schedule.HealAt))), Kind: faults.KindFailpoint,
		Node: mo.Node, Failpoint: mo.Failpoint, Action: faults.ActionPause, Duration: m.edgeDuration()}
	if !faults.IsRole(mo.Node) && m.rng.IntN(3) == 0 {
		e.Action, e.Duration = faults.ActionCrash, 0
	}
	in.Schedule.Events = append(ev, e)
	return true
}

// moment draws a protocol moment on one of nodes for aim, weighted toward
// those the arm's runs have not hit (momentCounts.weight).
func (m *mutator) moment(nodes []string) Moment {
	var all []Moment
	var weights []int
	total := 0
	for _, node := range nodes {
		for _, fp := range m.voc.Failpoints {
			mo := Moment{fp, node}
			w := m.moments.weight(mo)
			all, weights, total = append(all, mo), append(weights, w), total+w
		}
	}
	return all[weighted(m.rng, weights, total)]
}

// drift sets a node's clock running at the drift bound, fast or slow, from
// a random instant: where a margin that ignores the bound shows. The
// heal phase sets it back.
func (m *mutator) drift(in *Input, _ *Input) bool {
	if in.Schedule.HealAt == 0 || m.voc.Rho == 0 {
		return false
	}
	rate := m.voc.Rho
	if m.rng.IntN(2) == 0 {
		rate = -rate
	}
	in.Schedule.Events = append(in.Schedule.Events, faults.Event{At: time.Duration(m.rng.Int64N(int64(in.Schedule.HealAt))),
		Kind: faults.KindDrift, Node: m.voc.Targets[m.rng.IntN(len(m.voc.Targets))], Drift: rate})
	return true
}

// reseed is applied by mutate itself (it needs the search's seed
// stream); listed in ops so that it is drawn as often as the others.
func (m *mutator) reseed(*Input, *Input) bool { panic("explore: reseed is applied by mutate") }

// splice keeps in's events before an instant and takes other's after it.
func (m *mutator) splice(in *Input, other *Input) bool {
	if other == nil || in.Schedule.HealAt == 0 {
		return false
	}
	cut := time.Duration(m.rng.Int64N(int64(in.Schedule.HealAt)))
	kept := slices.DeleteFunc(in.Schedule.Events, func(e faults.Event) bool { return e.At >= cut })
	for _, e := range other.Schedule.Events {
		if e.At >= cut && e.At < in.Schedule.HealAt {
			kept = append(kept, e)
		}
	}
	in.Schedule.Events = kept
	return true
}
