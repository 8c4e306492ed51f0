package checker

import (
	"cmp"
	"slices"

	"github.com/leasesim/leasesim/history"
)

// run is one start of work on a task: a successful acquire on it that the
// holder acted on, which hands it a progress to resume from. The first run
// under a token that finds work already done on the task is a handoff; a
// later run under the same token resumes that token's work after its
// holder lost and regained belief (a re-confirmed grant).
type run struct {
	// grant is the index in the history of the acquire, if granted; not
	// granted if units came under a token no recorded grant issued.
	grant    int
	granted  bool
	token    uint64
	fresh    bool // the first run under token on the task
	handoff  bool // fresh, and some unit of the task was executed before
	accepted int  // progress of the latest accepted checkpoint at the grant
	handed   int  // progress the grant handed over
	// reexec counts the distinct units this run executed that had been
	// executed before; lowest is the lowest of them (-1 if none), and
	// reexecAt when the last of them was executed.
	reexec   int
	lowest   int
	reexecAt history.Time
	counted  []uint64 // bit set of the units counted in reexec
	// bound is the work done since the last accepted checkpoint: the
	// highest unit executed before (when this run re-executed one) + 1 −
	// accepted.
	bound int
}

// taskWork is what happened to one task.
type taskWork struct {
	id      string
	task    *history.TaskRecord // nil if the task is not in h.Tasks
	runs    []run
	first   []history.Time // first execution of each unit index, history.Never if none
	maxExec int            // highest unit index executed so far, -1 if none
	done    []int          // the accepted checkpoints that marked the task done: their indices in the history
}

// rework is the at-least-once accounting of a run: per task, its runs and
// the units each re-executed. P6 checks it; Measure reports it.
type rework struct {
	tasks    []*taskWork // sorted by task id
	reexec   int         // units re-executed, over every run
	handoffs int
}

// measureRework sweeps units, belief starts and grantor operations in
// true-time order (a belief start, then a unit, first at a tie: they were
// decided before).
func measureRework(a *analysis) rework {
	h := a.h
	s := reworkSweep{h: h, ck: newCheckpointTracker()}
	for i := range h.Tasks {
		s.get(h.Tasks[i].ID).task = &h.Tasks[i]
	}
	s.indexBeliefs()
	units, starts := unitsInOrder(h.Units), beliefStartsInOrder(h.Beliefs)
	upTo := func(t history.Time, all bool) {
		for {
			switch {
			case len(starts) > 0 && (all || h.Beliefs[starts[0]].Start <= t) &&
				(len(units) == 0 || h.Beliefs[starts[0]].Start <= h.Units[units[0]].At):
				s.startRun(&h.Beliefs[starts[0]])
				starts = starts[1:]
			case len(units) > 0 && (all || h.Units[units[0]].At <= t):
				s.rw.unit(s.get(h.Units[units[0]].Task), &h.Units[units[0]], s.ck)
				units = units[1:]
			default:
				return
			}
		}
	}
	var op history.Operation
	for i, r := range a.inProcessedOrder() {
		upTo(r.processed, false)
		switch {
		case r.grantorOK(opAcquire):
			h.LoadOp(i, &op)
			s.granted(i, &op)
		case r.grantorOK(opCheckpoint):
			h.LoadOp(i, &op)
			s.checkpointed(i, &op)
		}
	}
	upTo(0, true)
	slices.SortFunc(s.rw.tasks, func(a, b *taskWork) int { return cmp.Compare(a.id, b.id) })
	return s.rw
}

// reworkSweep is the state of measureRework.
type reworkSweep struct {
	h   *history.History
	rw  rework
	ids numbering[string] // tasks by id, into rw.tasks (before they are sorted)
	ck  checkpointTracker
	// starts holds the grants holders acted on: a belief of (holder, task,
	// token) starts the instant the grant's reply arrives. believed holds
	// the tasks with any belief; on a task without, every grant whose reply
	// arrived counts (a history recorded without beliefs).
	starts   map[beliefStart]bool
	believed map[string]bool
}

type beliefStart struct {
	holder, resource string
	token            uint64
	at               history.Time
}

// get returns task id's accounting, a new one if it has none.
func (s *reworkSweep) get(id string) *taskWork {
	i, isNew := s.ids.id(id, strHint(id))
	if isNew {
		s.rw.tasks = append(s.rw.tasks, &taskWork{id: id, maxExec: -1})
	}
	return s.rw.tasks[i]
}

// byID returns task id's accounting, nil if id is not a task.
func (s *reworkSweep) byID(id string) *taskWork {
	if i, ok := s.ids.find(id, strHint(id)); ok {
		return s.rw.tasks[i]
	}
	return nil
}

func (s *reworkSweep) indexBeliefs() {
	s.starts, s.believed = make(map[beliefStart]bool), make(map[string]bool)
	for i := range s.h.Beliefs {
		b := &s.h.Beliefs[i]
		if s.byID(b.Resource) != nil {
			s.starts[beliefStart{holder: b.Holder, resource: b.Resource, token: b.Token, at: b.Start}] = true
			s.believed[b.Resource] = true
		}
	}
}

// actedOn reports whether the holder acted on grant: its reply arrived and
// started a belief. A reply the holder ignored (it arrived after the
// request timed out, or a duplicate) starts no run.
func (s *reworkSweep) actedOn(grant *history.Operation) bool {
	if !grant.Returned() {
		return false
	}
	res := grant.Input.Resource
	return !s.believed[res] ||
		s.starts[beliefStart{holder: grant.Client, resource: res, token: grant.Output.Token, at: grant.Return}]
}

// granted accounts for an acquire the grantor accepted, operation i of the
// history: a run starts if its holder acted on it.
func (s *reworkSweep) granted(i int, op *history.Operation) {
	tw := s.byID(op.Input.Resource)
	if tw == nil || !s.actedOn(op) {
		return // not a task, or a grant nobody acted on
	}
	r := run{grant: i, granted: true, token: op.Output.Token, fresh: tw.runOf(op.Output.Token) < 0, lowest: -1,
		accepted: acceptedProgress(s.ck, op.Input.Resource), handed: history.DecodeProgress(op.Output.State).Units}
	r.handoff = r.fresh && tw.maxExec >= 0
	if r.handoff {
		s.rw.handoffs++
	}
	tw.runs = append(tw.runs, r)
}

// checkpointed accounts for a checkpoint the grantor accepted, operation i
// of the history.
func (s *reworkSweep) checkpointed(i int, op *history.Operation) {
	s.ck.accept(i, op)
	if tw := s.byID(op.Input.Resource); tw != nil && history.DecodeProgress(op.Input.State).Done {
		tw.done = append(tw.done, i)
	}
}

// startRun starts a run at a belief under a token no recorded grant
// issued: a store whose grants are not acquire replies (the lessor store
// grants by creating a key) hands over at the grant, so the progress
// accepted then, not at the run's first unit, bounds what it re-executes.
func (s *reworkSweep) startRun(b *history.BeliefInterval) {
	tw := s.byID(b.Resource)
	if tw == nil || tw.runOf(b.Token) >= 0 {
		return
	}
	r := run{token: b.Token, fresh: true, handoff: tw.maxExec >= 0, lowest: -1, accepted: acceptedProgress(s.ck, tw.id)}
	if r.handoff {
		s.rw.handoffs++
	}
	tw.runs = append(tw.runs, r)
}

// beliefStartsInOrder returns the indexes of beliefs in order of start.
func beliefStartsInOrder(bs []history.BeliefInterval) []int32 {
	return sortedIndices(len(bs), func(a, b int32) int { return cmp.Compare(bs[a].Start, bs[b].Start) })
}

// unitsInOrder returns the indexes of units in completion order.
func unitsInOrder(us []history.UnitDone) []int32 {
	return sortedIndices(len(us), func(a, b int32) int { return cmp.Compare(us[a].At, us[b].At) })
}

// acceptedProgress is the progress of the latest accepted checkpoint of
// resource, 0 if none.
func acceptedProgress(ck checkpointTracker, resource string) int {
	if c := ck.latest(resource); c != nil {
		return history.DecodeProgress(c.state).Units
	}
	return 0
}

// unit folds one executed unit into the accounting of its task.
func (rw *rework) unit(tw *taskWork, u *history.UnitDone, ck checkpointTracker) {
	if u.Index < 0 {
		return // not a unit of work; AtLeastOnce needs indexes 0..Units-1 only
	}
	for len(tw.first) <= u.Index {
		tw.first = append(tw.first, history.Never)
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
	if tw.first[u.Index] != history.Never && r.count(u.Index) {
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

// count marks unit index as re-executed by r and reports whether it was
// not marked yet: a run that executes a unit twice re-executed it once.
func (r *run) count(index int) bool {
	word, bit := index/64, uint64(1)<<(index%64)
	for len(r.counted) <= word {
		r.counted = append(r.counted, 0)
	}
	if r.counted[word]&bit != 0 {
		return false
	}
	r.counted[word] |= bit
	return true
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
