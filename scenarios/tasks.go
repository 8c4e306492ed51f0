package scenarios

import (
	"fmt"
	"slices"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// TaskSource yields a scenario's tasks in arrival order. A workload file is
// read through one, line by line, so a long workload does not sit in memory.
type TaskSource interface {
	// Next returns the next task, or false at the end.
	Next() (TaskSpec, bool)
	// Err says why the source ended early, if it did.
	Err() error
}

// SliceTasks returns a TaskSource over tasks, sorted by arrival.
func SliceTasks(tasks []TaskSpec) TaskSource {
	sorted := slices.Clone(tasks)
	slices.SortStableFunc(sorted, func(a, b TaskSpec) int { return int(a.Arrival - b.Arrival) })
	return &sliceTasks{tasks: sorted}
}

type sliceTasks struct{ tasks []TaskSpec }

func (s *sliceTasks) Next() (TaskSpec, bool) {
	if len(s.tasks) == 0 {
		return TaskSpec{}, false
	}
	t := s.tasks[0]
	s.tasks = s.tasks[1:]
	return t, true
}

func (s *sliceTasks) Err() error { return nil }

// taskQueue is the shared queue workers learn tasks from: each task arrives
// at its time and every worker is told; a completed task leaves the queue.
// Only the next arrival is read ahead from the source.
type taskQueue struct {
	w       *sim.World
	h       *history.History
	src     TaskSource
	err     error
	open    []string               // arrived and not known complete, in arrival order; "" where one completed
	openAt  map[string]int         // index into open; looked up, never iterated
	holes   int                    // completed entries ("") left in open
	arrived map[string]arrivedTask // every arrived task, looked up, never iterated
	asks    []doneAsk              // workers' done checkpoints, in the order asked (task_completion.go)
	workers []*sim.Node            // worker nodes, in order
	current []*worker              // each worker node's current incarnation
}

func newTaskQueue(w *sim.World, h *history.History, src TaskSource) *taskQueue {
	return &taskQueue{w: w, h: h, src: src, arrived: make(map[string]arrivedTask), openAt: make(map[string]int)}
}

// arrivedTask is a task that arrived, and its record in the history.
type arrivedTask struct {
	TaskSpec
	record int // into History.Tasks
}

// start schedules the first arrival.
func (q *taskQueue) start() { q.scheduleNext() }

func (q *taskQueue) scheduleNext() {
	t, ok := q.src.Next()
	if !ok {
		if err := q.src.Err(); err != nil {
			q.fail(err)
		}
		return
	}
	q.w.At(max(sim.Time(t.Arrival), q.w.Now()), func() { q.arrive(t) })
}

func (q *taskQueue) fail(err error) {
	if q.err == nil {
		q.err = err
		q.w.Stop(err)
	}
}

func (q *taskQueue) arrive(t TaskSpec) {
	if _, dup := q.arrived[t.ID]; dup {
		q.fail(fmt.Errorf("task %q arrives twice", t.ID))
		return
	}
	if t.ID == "" || t.Units <= 0 || t.UnitTime <= 0 {
		q.fail(fmt.Errorf("task %q: needs an id, units > 0 and a unit time > 0", t.ID))
		return
	}
	q.arrived[t.ID] = arrivedTask{TaskSpec: t, record: len(q.h.Tasks)}
	q.openAt[t.ID] = len(q.open)
	q.open = append(q.open, t.ID)
	q.h.Tasks = append(q.h.Tasks, history.TaskRecord{ID: t.ID, Units: t.Units, Arrival: history.Time(q.w.Now()),
		Done: history.Never, DoneUnanswered: history.Never, UnitTime: t.UnitTime})
	for i, n := range q.workers {
		// A node timer, so that a paused worker hears of it when it resumes
		// and a crashed one not at all.
		n.SetTimer(0, func() {
			if wk := q.current[i]; wk != nil {
				wk.contend(t.ID)
			}
		})
	}
	q.scheduleNext()
}

// addWorker registers a worker node; join installs each incarnation.
func (q *taskQueue) addWorker(n *sim.Node) int {
	q.workers = append(q.workers, n)
	q.current = append(q.current, nil)
	return len(q.workers) - 1
}

// join makes wk the current incarnation of worker i and tells it of every
// open task.
func (q *taskQueue) join(i int, wk *worker) {
	q.current[i] = wk
	for _, id := range q.open {
		if id != "" {
			wk.contend(id)
		}
	}
}

// completed removes a task from the queue once a worker knows it is done,
// in constant time: it leaves a hole, and the holes are squeezed out when
// they are half the queue.
func (q *taskQueue) completed(id string) {
	i, ok := q.openAt[id]
	if !ok {
		return
	}
	delete(q.openAt, id)
	q.open[i] = ""
	q.holes++
	if q.holes*2 < len(q.open) {
		return
	}
	kept := q.open[:0]
	for _, id := range q.open {
		if id != "" {
			q.openAt[id] = len(kept)
			kept = append(kept, id)
		}
	}
	clear(q.open[len(kept):])
	q.open, q.holes = kept, 0
}
