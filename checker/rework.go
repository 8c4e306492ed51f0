package checker

import (
	"cmp"
	"slices"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// run is one start of work on a task: a successful acquire on it, which
// hands the holder a progress to resume from. A fresh grant (a new token)
// that finds work already done on the task is a handoff; a re-confirmed
// grant restarts the same token's work after its holder lost and regained
// belief.
type run struct {
	grant    *history.Op // the acquire; nil if units came under a token no recorded grant issued
	token    uint64
	fresh    bool
	handoff  bool // fresh, and some unit of the task was executed before
	accepted int  // progress of the latest accepted checkpoint at the grant
	handed   int  // progress the grant handed over
	// reexec counts the distinct units this run executed that had been
	// executed before; lowest is the lowest of them (-1 if none), and
	// reexecAt when the last of them was executed.
	reexec   int
	lowest   int
	reexecAt sim.Time
	// bound is the work done since the last accepted checkpoint: the
	// highest unit executed before (when this run re-executed one) + 1 −
	// accepted.
	bound int
}

// taskWork is what happened to one task.
type taskWork struct {
	id    string
	task  *history.Task // nil if the task is not in h.Tasks
	runs  []run
	first []sim.Time // first execution of each unit index, sim.Never if none
	// lastRun[i] is 1 + the run that last counted unit i as re-executed.
	lastRun []int32
	maxExec int // highest unit index executed so far, -1 if none
	done    []*history.Op
}

// rework is the at-least-once accounting of a run: per task, its runs and
// the units each re-executed. P6 checks it; Measure reports it.
type rework struct {
	tasks    []*taskWork // sorted by task id
	reexec   int         // units re-executed, over every run
	handoffs int
}

// measureRework sweeps units and grantor operations in true-time order (a
// unit first at a tie: it was decided before).
func measureRework(h *history.History) rework {
	byID := make(map[string]*taskWork, len(h.Tasks))
	var rw rework
	get := func(id string) *taskWork {
		tw := byID[id]
		if tw == nil {
			tw = &taskWork{id: id, maxExec: -1}
			byID[id] = tw
			rw.tasks = append(rw.tasks, tw)
		}
		return tw
	}
	for i := range h.Tasks {
		get(h.Tasks[i].ID).task = &h.Tasks[i]
	}
	ck := newCheckpointTracker()
	grants := newGrantTracker()
	units := unitsInOrder(h.Units)
	for _, op := range inProcessedOrder(h) {
		for len(units) > 0 && h.Units[units[0]].At <= op.Processed {
			rw.unit(get(h.Units[units[0]].Task), &h.Units[units[0]], ck)
			units = units[1:]
		}
		rw.op(h, op, byID, ck, grants)
	}
	for _, i := range units {
		rw.unit(get(h.Units[i].Task), &h.Units[i], ck)
	}
	slices.SortFunc(rw.tasks, func(a, b *taskWork) int { return cmp.Compare(a.id, b.id) })
	return rw
}

// unitsInOrder returns the indexes of units in completion order.
func unitsInOrder(us []history.Unit) []int32 {
	order := make([]int32, len(us))
	for i := range order {
		order[i] = int32(i)
	}
	if !slices.IsSortedFunc(us, func(a, b history.Unit) int { return compareTimes(a.At, b.At) }) {
		slices.SortStableFunc(order, func(a, b int32) int { return compareTimes(us[a].At, us[b].At) })
	}
	return order
}

// op folds a grantor operation into the accounting.
func (rw *rework) op(h *history.History, op *history.Op, byID map[string]*taskWork, ck checkpointTracker, grants grantTracker) {
	switch {
	case isAcquireOK(h, op):
		kind, _ := grants.observe(op)
		tw := byID[op.In.Resource]
		if tw == nil {
			return // not a task
		}
		r := run{grant: op, token: op.Out.Token, fresh: kind != reconfirmed, lowest: -1,
			accepted: acceptedProgress(ck, op.In.Resource), handed: history.DecodeProgress(op.Out.State).Units}
		r.handoff = r.fresh && tw.maxExec >= 0
		if r.handoff {
			rw.handoffs++
		}
		tw.runs = append(tw.runs, r)
	case isGrantorOK(h, op, lease.KindCheckpoint):
		ck.accept(op)
		if tw := byID[op.In.Resource]; tw != nil && history.DecodeProgress(op.In.State).Done {
			tw.done = append(tw.done, op)
		}
	}
}

// acceptedProgress is the progress of the latest accepted checkpoint of
// resource, 0 if none.
func acceptedProgress(ck checkpointTracker, resource string) int {
	if c := ck.latest(resource); c != nil {
		return history.DecodeProgress(c.In.State).Units
	}
	return 0
}

// unit folds one executed unit into the accounting of its task.
func (rw *rework) unit(tw *taskWork, u *history.Unit, ck checkpointTracker) {
	if u.Index < 0 {
		return // not a unit of work; AtLeastOnce needs indexes 0..Units-1 only
	}
	for len(tw.first) <= u.Index {
		tw.first = append(tw.first, sim.Never)
		tw.lastRun = append(tw.lastRun, 0)
	}
	ri := tw.runOf(u.Token)
	if ri < 0 {
		// No recorded grant issued this token: account the units to a run
		// that starts here.
		r := run{token: u.Token, fresh: true, handoff: tw.maxExec >= 0, lowest: -1, accepted: acceptedProgress(ck, tw.id)}
		if r.handoff {
			rw.handoffs++
		}
		tw.runs = append(tw.runs, r)
		ri = len(tw.runs) - 1
	}
	r := &tw.runs[ri]
	if tw.first[u.Index] != sim.Never && tw.lastRun[u.Index] != int32(ri+1) {
		tw.lastRun[u.Index] = int32(ri + 1)
		rw.reexec++
		r.reexec++
		r.reexecAt = u.At
		if r.lowest < 0 || u.Index < r.lowest {
			r.lowest = u.Index
		}
		r.bound = max(r.bound, tw.maxExec+1-r.accepted)
	}
	tw.first[u.Index] = min(tw.first[u.Index], u.At)
	tw.maxExec = max(tw.maxExec, u.Index)
}

// runOf returns the latest run under token, or -1.
func (tw *taskWork) runOf(token uint64) int {
	for i := len(tw.runs) - 1; i >= 0; i-- {
		if tw.runs[i].token == token {
			return i
		}
	}
	return -1
}

// duplicateEffects counts unfenced side effects performed more than once:
// for each (resource, id), every performance after the first.
func duplicateEffects(h *history.History) int {
	type key struct{ resource, id string }
	seen := make(map[key]bool, len(h.Effects))
	dups := 0
	for _, e := range h.Effects {
		k := key{resource: e.Resource, id: e.ID}
		if seen[k] {
			dups++
		}
		seen[k] = true
	}
	return dups
}
