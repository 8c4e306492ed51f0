package sim

// eventKind says what an event does when it is popped.
type eventKind uint8

const (
	evTimer   eventKind = iota + 1 // a timer slot fires (node timers and world calls)
	evDeliver                      // a message slot is delivered
)

// event is one entry of the queue. It is a small value type: the payload (a
// callback or a message) lives in a slab and the event refers to it by index,
// so the queue never boxes or allocates per event.
type event struct {
	at   Time
	seq  uint64
	ref  uint32 // slot index in the timer or message slab
	gen  uint32 // slot generation; a mismatch means the event was cancelled
	kind eventKind
}

func (e *event) before(o *event) bool {
	return e.at < o.at || (e.at == o.at && e.seq < o.seq)
}

// queue is a binary min-heap of events ordered by (at, seq). Ties in time
// break by insertion sequence, which is what makes runs reproducible.
type queue struct {
	items []event
	seq   uint64
}

func (q *queue) len() int { return len(q.items) }

// push inserts an event at time at and stamps it with the next sequence.
func (q *queue) push(at Time, kind eventKind, ref, gen uint32) {
	q.seq++
	q.items = append(q.items, event{at: at, seq: q.seq, ref: ref, gen: gen, kind: kind})
	q.up(len(q.items) - 1)
}

// peek returns the earliest event's time, or Never when the queue is empty.
func (q *queue) peek() Time {
	if len(q.items) == 0 {
		return Never
	}
	return q.items[0].at
}

// pop removes and returns the earliest event. The queue must not be empty.
func (q *queue) pop() event {
	items := q.items
	top := items[0]
	last := len(items) - 1
	items[0] = items[last]
	q.items = items[:last]
	if last > 0 {
		q.down(0)
	}
	return top
}

func (q *queue) up(i int) {
	items := q.items
	e := items[i]
	for i > 0 {
		parent := (i - 1) / 2
		if !e.before(&items[parent]) {
			break
		}
		items[i] = items[parent]
		i = parent
	}
	items[i] = e
}

func (q *queue) down(i int) {
	items := q.items
	n := len(items)
	e := items[i]
	for {
		child := 2*i + 1
		if child >= n {
			break
		}
		if right := child + 1; right < n && items[right].before(&items[child]) {
			child = right
		}
		if !items[child].before(&e) {
			break
		}
		items[i] = items[child]
		i = child
	}
	items[i] = e
}
