package scenarios

import (
	"errors"
	"fmt"
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
}

// taskRun is one worker's work on one task under one token.
type taskRun struct {
	spec     TaskSpec
	token    uint64
	next     int // next unit to run
	lastCkpt int // progress of the last checkpoint sent
}

func startWorker(n *sim.Node, h lease.Holder, rec *recorder, cfg lease.Config, queue *taskQueue, index int) {
	wk := &worker{n: n, h: h, rec: rec, cfg: cfg, queue: queue,
		done: make(map[string]bool), runs: make(map[string]*taskRun)}
	queue.join(index, wk)
}

func (wk *worker) contend(task string) {
	if wk.done[task] {
		return
	}
	wk.h.Acquire(task, lease.AcquireOptions{OnGrant: wk.granted, OnLost: wk.lost})
}

func (wk *worker) granted(g lease.Grant) {
	if r := wk.runs[g.Resource]; r != nil && r.token == g.Token {
		return
	}
	p := history.DecodeProgress(g.State)
	if p.Done {
		wk.finished(g.Resource)
		return
	}
	r := &taskRun{spec: wk.queue.specs[g.Resource], token: g.Token, next: p.Units, lastCkpt: p.Units}
	wk.runs[g.Resource] = r
	wk.step(r)
	if wk.cfg.CheckpointInterval > 0 {
		wk.n.SetTimer(wk.cfg.CheckpointInterval, func() { wk.tick(r) })
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
	index := r.next
	wk.n.SetTimer(r.spec.UnitTime, func() {
		wk.rec.unit(wk.n, r.spec.ID, index, r.token)
		wk.h.SideEffect(r.spec.ID, unitEffectID(r.spec.ID, index))
		r.next = index + 1
		if every := wk.cfg.CheckpointEveryUnits; every > 0 && r.next%every == 0 && r.next < r.spec.Units {
			wk.checkpoint(r, false)
		}
		wk.step(r)
	})
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
	wk.n.SetTimer(wk.cfg.CheckpointInterval, func() { wk.tick(r) })
}

func (wk *worker) checkpoint(r *taskRun, done bool) {
	r.lastCkpt = r.next
	state := history.Progress{Units: r.next, Done: done}.Encode()
	wk.h.Checkpoint(r.spec.ID, state, func(err error) {
		switch {
		case err == nil && done:
			wk.finished(r.spec.ID)
		case errors.Is(err, lease.ErrFenced) || errors.Is(err, lease.ErrLeaseExpired):
			wk.lost(r.spec.ID, r.token, err)
		case err != nil && done:
			// The completion checkpoint may or may not have landed; try again.
			wk.n.SetTimer(wk.cfg.BackoffMin, func() { wk.step(r) })
		}
	})
}

// complete records the result with a fenced write, then checkpoints done.
func (wk *worker) complete(r *taskRun) {
	wk.h.Write(r.spec.ID, "result", fmt.Appendf(nil, "%s by %s", r.spec.ID, wk.n.Name()), func(err error) {
		if err != nil {
			if errors.Is(err, lease.ErrTimeout) {
				wk.n.SetTimer(wk.cfg.BackoffMin, func() { wk.step(r) })
			}
			return // fenced or expired: the holder has dropped the lease
		}
		if wk.current(r) {
			wk.rec.act(wk.n, r.spec.ID, r.token)
			wk.checkpoint(r, true)
		}
	})
}

// finished stops contending for a completed task.
func (wk *worker) finished(task string) {
	wk.done[task] = true
	wk.queue.completed(task)
	delete(wk.runs, task)
	wk.h.Release(task)
}
