package scenarios

import (
	"github.com/leasesim/leasesim/history"
)

// What the harness knows of a task's completion besides the store's
// acceptance of a done checkpoint (build.finish): a worker handed the task
// as done by a grant learns that the store completed it, and a worker's
// done checkpoint that never got an answer may have completed it at any
// time after it was asked. A replicated store commits a request through
// its log, and may apply one whose member crashed before it answered: the
// store then completes the task, no acceptance is recorded, and only a
// later grant shows it (zoo/etcdraft's swarm, seed 495).

// doneAsk is a worker's request to checkpoint a task done, until its
// answer.
type doneAsk struct {
	task     int // into the history's tasks
	at       history.Time
	answered bool // accepted, refused as stale, or never sent
}

// askedDone notes that a worker asks now to checkpoint task done, and
// returns the ask for answeredDone.
func (q *taskQueue) askedDone(task string) int32 {
	q.asks = append(q.asks, doneAsk{task: q.arrived[task].record, at: history.Time(q.w.Now())})
	return int32(len(q.asks) - 1)
}

// answeredDone notes the answer to ask: one of a Checkpoint's definite
// outcomes (lease.Holder): accepted, refused as stale (ErrFenced) or not
// sent (ErrLeaseExpired). A timeout is no answer: the request may still
// be applied.
func (q *taskQueue) answeredDone(ask int32) { q.asks[ask].answered = true }

// seenDone notes that a worker was handed task as done now.
func (q *taskQueue) seenDone(task string) {
	t := &q.h.Tasks[q.arrived[task].record]
	t.Done = min(t.Done, history.Time(q.w.Now())) // Never is the largest time
}

// finishCompletion records, when the run ends, each task's first done
// checkpoint that got no answer (TaskRecord.DoneUnanswered).
func (q *taskQueue) finishCompletion() {
	for _, a := range q.asks {
		if t := &q.h.Tasks[a.task]; !a.answered {
			t.DoneUnanswered = min(t.DoneUnanswered, a.at)
		}
	}
}
