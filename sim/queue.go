package sim

import "math/bits"

// eventKind says what an event does when it is popped.
type eventKind uint8

const (
	evTimer   eventKind = iota // a timer slot fires (node timers and world calls)
	evDeliver                  // a message slot is delivered
)

// event is one entry of the queue. It is a small value type (three words):
// the payload (a callback or a message) lives in a slab and the event refers
// to it by index, so the queue never boxes or allocates per event.
type event struct {
	at Time
	// key is the insertion sequence shifted left by one, with the event's
	// kind in the low bit. Sequences are unique, so ordering by key orders
	// by sequence; packing the kind keeps the event at three words.
	key uint64
	ref uint32 // slot index in the timer or message slab
	gen uint32 // the slot's version when the event was queued
}

func (e *event) kind() eventKind { return eventKind(e.key & 1) }

// less returns 1 if a comes before b in (at, sequence) order and 0
// otherwise. It compares the pair as one 128-bit unsigned number (event
// times are never negative), which compiles to a subtract, a
// subtract-with-borrow and no branch. The heap's comparisons are coin flips
// for the branch predictor, so avoiding the branch is what makes the queue
// fast.
func less(a, b *event) int {
	_, borrow := bits.Sub64(a.key, b.key, 0)
	_, borrow = bits.Sub64(uint64(a.at), uint64(b.at), borrow)
	return int(borrow)
}

// queue is a binary min-heap of events ordered by (at, sequence). Ties in
// time break by insertion sequence, which is what makes runs reproducible.
//
// The kernel takes the earliest event with take and, while that event runs,
// it usually queues the next one (a timer re-arms, a message is answered).
// So take leaves the event at the root, and the first push that follows
// overwrites it and sifts down once: one pass through the heap per event
// instead of two (a pop's and a push's). finish removes a taken event that
// nothing replaced.
type queue struct {
	items []event
	seq   uint64
	taken bool // items[0] was taken and awaits replacement or removal
}

// len returns the number of queued events.
func (q *queue) len() int {
	if q.taken {
		return len(q.items) - 1
	}
	return len(q.items)
}

// push inserts an event at time at, stamps it with the next sequence and
// returns that sequence.
func (q *queue) push(at Time, kind eventKind, ref, gen uint32) uint64 {
	q.seq++
	q.pushSeq(at, q.seq, kind, ref, gen)
	return q.seq
}

// reserve sets n sequence numbers aside, for events that pushSeq queues
// later in the place they would have had if pushed now, and returns the
// first of them.
func (q *queue) reserve(n int) uint64 {
	first := q.seq + 1
	q.seq += uint64(n)
	return first
}

// pushSeq inserts an event at time at stamped with sequence seq, a
// sequence reserve set aside (or push's next).
func (q *queue) pushSeq(at Time, seq uint64, kind eventKind, ref, gen uint32) {
	if at < 0 {
		panic("sim: invariant event-time-not-negative: an event was queued before time zero")
	}
	e := event{at: at, key: seq<<1 | uint64(kind), ref: ref, gen: gen}
	if q.taken {
		q.taken = false
		q.down(0, e)
		return
	}
	q.items = append(q.items, e)
	q.up(len(q.items)-1, e)
}

// top returns the earliest event. The queue must not be empty.
func (q *queue) top() *event {
	q.finish()
	return &q.items[0]
}

// take returns the earliest event, to be replaced by the next push or
// removed by finish. The queue must not be empty.
func (q *queue) take() event {
	q.finish()
	q.taken = true
	return q.items[0]
}

// finish removes the taken event if no push replaced it.
func (q *queue) finish() {
	if q.taken {
		q.taken = false
		q.pop()
	}
}

// pop removes and returns the earliest event. The queue must not be empty
// and no event may be taken.
func (q *queue) pop() event {
	items := q.items
	top := items[0]
	last := len(items) - 1
	e := items[last]
	q.items = items[:last]
	if last > 0 {
		q.down(0, e)
	}
	return top
}

// up places e, which belongs at index i, by moving larger parents down.
func (q *queue) up(i int, e event) {
	items := q.items
	for i > 0 {
		parent := (i - 1) / 2
		if less(&e, &items[parent]) == 0 {
			break
		}
		items[i] = items[parent]
		i = parent
	}
	items[i] = e
}

// down places e, which belongs at index i or below, by moving the smaller
// child up until e fits.
func (q *queue) down(i int, e event) {
	items := q.items
	n := len(items)
	for {
		child := 2*i + 1
		if child+1 < n {
			child += less(&items[child+1], &items[child])
		} else if child >= n {
			break
		}
		if less(&items[child], &e) == 0 {
			break
		}
		items[i] = items[child]
		i = child
	}
	items[i] = e
}

// filter keeps the events for which keep returns true and restores the heap
// order. The order in which events pop does not change, because (at,
// sequence) is a total order.
func (q *queue) filter(keep func(*event) bool) {
	q.finish()
	kept := q.items[:0]
	for i := range q.items {
		if keep(&q.items[i]) {
			kept = append(kept, q.items[i])
		}
	}
	clear(q.items[len(kept):])
	q.items = kept
	for i := len(kept)/2 - 1; i >= 0; i-- {
		q.down(i, kept[i])
	}
}
