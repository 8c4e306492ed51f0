package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/sim"
)

// tokenTimers are the pending timers of one node incarnation's workload
// that share one delay and one callback, each armed under a grant: the
// tokens they were armed under, in the order they were armed. Timers of
// one delay on one node fire in that order (a node's clock never goes
// back, and timers due at once fire in the order they were set, also after
// a pause), so the callback, bound once, takes its token from the front
// (next) instead of a closure per timer holding it. A crashed node arms
// nothing, and a workload lives for one incarnation.
type tokenTimers struct {
	delay  time.Duration
	fire   func() // the callback every timer runs, bound once
	tokens []uint64
	head   int
}

// arm sets a timer on n that runs the callback after the delay, under token.
func (q *tokenTimers) arm(n *sim.Node, token uint64) {
	if n.SetTimer(q.delay, q.fire) == (sim.TimerID{}) {
		return // a crashed node's timer never fires
	}
	q.tokens = append(q.tokens, token)
}

// next returns the token of the timer firing now: the oldest armed. It
// starts over at the front of its array once none is pending.
func (q *tokenTimers) next() uint64 {
	if q.head == len(q.tokens) {
		panic("scenarios: invariant token-timer-armed: a workload timer fired that was never armed")
	}
	t := q.tokens[q.head]
	q.head++
	if q.head == len(q.tokens) {
		q.tokens, q.head = q.tokens[:0], 0
	}
	return t
}
