package scenarios

import (
	"errors"
	"strconv"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// worker contends for every task that has arrived, runs the units of the
// tasks it holds from their latest checkpoint, checkpoints its progress
// under its token, and completes a task with a fenced write and a final
// checkpoint. It lives for one incarnation of its node.
type worker struct {
	n     *sim.Node
	h     lease.Holder
	rec   *recorder
	cfg   lease.Config
	queue *taskQueue
	done  map[string]bool
	runs  map[string]*taskRun
	// scratch holds the result being written; the holder copies it
	// (lease.Holder.Write), so one buffer serves every completion.
	scratch []byte
	// acquire holds the Acquire callbacks, behind their boundaries, made
	// once per incarnation rather than once per task.
	acquire guardedAcquire
}

// taskRun is one worker's work on one task under one token.
type taskRun struct {
	spec     TaskSpec
	token    uint64
	next     int   // next unit to run
	lastCkpt int   // progress of the last checkpoint sent
	doneAsk  int32 // the done checkpoint awaiting its answer (taskQueue.askedDone), or -1
	// The run's timer callbacks and action completions (these behind their
	// harness boundary), each bound to the run once, when first needed,
	// rather than once per unit, tick or action. None keeps state beyond
	// the run's, so reusing one is the same as making a fresh one.
	unitTimer, tickTimer, retryTimer          func()
	checkpointed, doneCheckpointed, completed guardedDone
}

func startWorker(n *sim.Node, h lease.Holder, rec *recorder, cfg lease.Config, queue *taskQueue, index int) {
	wk := &worker{n: n, h: h, rec: rec, cfg: cfg, queue: queue,
		done: make(map[string]bool), runs: make(map[string]*taskRun)}
	wk.acquire = guardAcquire(lease.AcquireOptions{OnGrant: wk.granted, OnLost: wk.lost})
	queue.join(index, wk)
}

func (wk *worker) contend(task string) {
	if wk.done[task] {
		return
	}
	holderAcquire(wk.h, task, wk.acquire)
}

func (wk *worker) granted(g lease.Grant) {
	if r := wk.runs[g.Resource]; r != nil && r.token == g.Token {
		return
	}
	p := history.DecodeProgress(g.State)
	if p.Done {
		wk.queue.seenDone(g.Resource)
		wk.finished(g.Resource)
		return
	}
	r := &taskRun{spec: wk.queue.arrived[g.Resource].TaskSpec, token: g.Token, next: p.Units, lastCkpt: p.Units, doneAsk: -1}
	wk.runs[g.Resource] = r
	wk.step(r)
	if wk.cfg.CheckpointInterval > 0 {
		wk.n.SetTimer(wk.cfg.CheckpointInterval, wk.tickTimer(r))
	}
}

func (wk *worker) lost(task string, token uint64, _ error) {
	if r := wk.runs[task]; r != nil && r.token == token {
		delete(wk.runs, task)
	}
}

// current reports whether r is still the run this worker acts on, and its
// lease is valid now.
func (wk *worker) current(r *taskRun) bool {
	if wk.runs[r.spec.ID] != r {
		return false
	}
	g, ok := wk.h.Valid(r.spec.ID)
	return ok && g.Token == r.token
}

// step starts the next unit, or completes the task.
func (wk *worker) step(r *taskRun) {
	if !wk.current(r) {
		return
	}
	wk.rec.act(wk.n, r.spec.ID, r.token)
	if r.next >= r.spec.Units {
		wk.complete(r)
		return
	}
	if r.unitTimer == nil {
		r.unitTimer = func() { wk.unitDone(r) }
	}
	wk.n.SetTimer(r.spec.UnitTime, r.unitTimer)
}

// unitDone ends unit r.next, the one step started: no step starts another
// before it ends, since only unitDone steps while units remain.
func (wk *worker) unitDone(r *taskRun) {
	index := r.next
	wk.rec.unit(wk.n, r.spec.ID, index, r.token)
	wk.h.(lease.Effector).SideEffect(r.spec.ID, unitEffectID(r.spec.ID, index))
	r.next = index + 1
	if every := wk.cfg.CheckpointEveryUnits; every > 0 && r.next%every == 0 && r.next < r.spec.Units {
		wk.checkpoint(r, false)
	}
	wk.step(r)
}

// tickTimer returns r's checkpoint timer callback.
func (wk *worker) tickTimer(r *taskRun) func() {
	if r.tickTimer == nil {
		r.tickTimer = func() { wk.tick(r) }
	}
	return r.tickTimer
}

// retryTimer returns r's callback that steps again after a backoff.
func (wk *worker) retryTimer(r *taskRun) func() {
	if r.retryTimer == nil {
		r.retryTimer = func() { wk.step(r) }
	}
	return r.retryTimer
}

// unitEffectID names the side effect of a unit: "task/index".
func unitEffectID(task string, index int) string {
	var buf [64]byte
	b := append(append(buf[:0], task...), '/')
	return string(strconv.AppendInt(b, int64(index), 10))
}

// tick checkpoints on a timer while the run goes on.
func (wk *worker) tick(r *taskRun) {
	if wk.runs[r.spec.ID] != r {
		return
	}
	if r.next > r.lastCkpt && wk.current(r) {
		wk.rec.act(wk.n, r.spec.ID, r.token)
		wk.checkpoint(r, false)
	}
	wk.n.SetTimer(wk.cfg.CheckpointInterval, wk.tickTimer(r))
}

func (wk *worker) checkpoint(r *taskRun, done bool) {
	r.lastCkpt = r.next
	state := history.Progress{Units: r.next, Done: done}.Encode()
	var cb guardedDone
	switch {
	case done && r.doneCheckpointed != nil:
		cb = r.doneCheckpointed
	case done:
		cb = func(err error) { harnessCall(func() { wk.checkpointed(r, true, err) }) } // one closure, not guardDone's two
		r.doneCheckpointed = cb
	case r.checkpointed != nil:
		cb = r.checkpointed
	default:
		cb = func(err error) { harnessCall(func() { wk.checkpointed(r, false, err) }) }
		r.checkpointed = cb
	}
	if done {
		r.doneAsk = wk.queue.askedDone(r.spec.ID)
	}
	holderCheckpoint(wk.h, r.spec.ID, state, cb)
}

// checkpointed handles the outcome of a checkpoint of r (done: the
// completion checkpoint).
func (wk *worker) checkpointed(r *taskRun, done bool, err error) {
	if done && r.doneAsk >= 0 {
		if err == nil || errors.Is(err, lease.ErrFenced) || errors.Is(err, lease.ErrLeaseExpired) {
			wk.queue.answeredDone(r.doneAsk)
		}
		r.doneAsk = -1
	}
	switch {
	case err == nil && done:
		wk.finished(r.spec.ID)
	case errors.Is(err, lease.ErrFenced) || errors.Is(err, lease.ErrLeaseExpired):
		wk.lost(r.spec.ID, r.token, err)
	case err != nil && done:
		// The completion checkpoint may or may not have landed; try again.
		wk.n.SetTimer(wk.cfg.BackoffMin, wk.retryTimer(r))
	}
}

// complete records the result, "task by node", with a fenced write, then
// checkpoints done.
func (wk *worker) complete(r *taskRun) {
	if r.completed == nil {
		r.completed = func(err error) { harnessCall(func() { wk.written(r, err) }) }
	}
	wk.scratch = append(append(append(wk.scratch[:0], r.spec.ID...), " by "...), wk.n.Name()...)
	holderWrite(wk.h, r.spec.ID, "result", wk.scratch, r.completed)
}

// written handles the outcome of r's result write.
func (wk *worker) written(r *taskRun, err error) {
	if err != nil {
		if errors.Is(err, lease.ErrTimeout) {
			wk.n.SetTimer(wk.cfg.BackoffMin, wk.retryTimer(r))
		}
		return // fenced or expired: the holder has dropped the lease
	}
	if wk.current(r) {
		wk.rec.act(wk.n, r.spec.ID, r.token)
		wk.checkpoint(r, true)
	}
}

// finished stops contending for a completed task.
func (wk *worker) finished(task string) {
	wk.done[task] = true
	wk.queue.completed(task)
	delete(wk.runs, task)
	wk.h.Release(task)
}
