package sim

import "fmt"

// Series runs fn(0), fn(1), …, fn(n-1) at times at(0) <= at(1) <= … of true
// time, outside any node, as n calls of At made now would, in the same order
// among every other event; but only the next of them is queued at a time.
// A long schedule (a fault plan of thousands of events over hours) so does not
// deepen the event queue, whose every push and pop costs the logarithm of its
// length, for the whole run (and a series counts as one pending event
// against Limits.Queue). at is read once for each i, just before fn(i-1)
// runs (at(0) now); a time before the one before it, or before now, panics
// then, when it is read.
func (w *World) Series(n int, at func(i int) Time, fn func(i int)) {
	if n <= 0 {
		return
	}
	s := &series{w: w, first: w.q.reserve(n), n: n, at: at, fn: fn, last: w.now}
	s.queue()
}

// series is a Series under way: the callback of its queued event.
type series struct {
	w     *World
	first uint64 // the sequence reserved for event 0
	n     int
	next  int // the event queued, or running
	last  Time
	at    func(int) Time
	fn    func(int)
}

// queue queues event s.next at its time, in the place reserved for it.
func (s *series) queue() {
	t := s.at(s.next)
	if t < s.last {
		panic(fmt.Sprintf("sim: Series event %d at %v is before %v", s.next, t, s.last))
	}
	s.last = t
	s.w.pushTimerSeq(t, s.w.allocTimer(s, -1), s.first+uint64(s.next))
}

// Run runs the event due and queues the next.
func (s *series) Run() {
	i := s.next
	if s.next++; s.next < s.n {
		s.queue()
	}
	s.fn(i)
}
