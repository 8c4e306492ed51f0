package lease

// A write or a checkpoint passes a failpoint before it leaves the node
// (FailpointBeforeWrite, FailpointBeforeCheckpoint), where a harness may
// hold it (a pause) or drop it with the node (a crash). The holder keeps
// what waits there in a queue, and every failpoint gets the same
// continuation, bound once per holder (onResume). A continuation that runs
// while its Failpoint call is under way (no fault, or a pause that blocks
// the caller) sends the action that call passed, the newest; one that runs
// later (a pause that returns and resumes the node) sends the oldest
// waiting: a node's continuations run in the order of their failpoints
// (Env). A continuation per write, holding its action, was one allocation
// per write.

// heldAction is a write or a checkpoint waiting at its failpoint.
type heldAction struct {
	purpose reqPurpose // forWrite or forCheckpoint
	act     action
}

// heldQueue is the actions waiting at their failpoints, oldest first:
// items[head:] wait. It starts over at the front of its array once empty,
// so in the steady state (nothing or one waits) it allocates nothing.
type heldQueue struct {
	items []heldAction
	head  int
}

// popNewest takes the newest; false if nothing waits.
func (q *heldQueue) popNewest() (heldAction, bool) {
	n := len(q.items)
	if q.head == n {
		return heldAction{}, false
	}
	a := q.items[n-1]
	q.items[n-1] = heldAction{}
	q.items = q.items[:n-1]
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return a, true
}

// push adds a to the back.
func (q *heldQueue) push(a heldAction) { q.items = append(q.items, a) }

// pop takes the oldest; false if nothing waits.
func (q *heldQueue) pop() (heldAction, bool) {
	if q.head == len(q.items) {
		return heldAction{}, false
	}
	a := q.items[q.head]
	q.items[q.head] = heldAction{} // what it refers to is the pending's now
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return a, true
}

// waitAtFailpoint queues act (purpose forWrite or forCheckpoint) and passes the
// failpoint name; the failpoint's continuation sends it.
func (h *holder) waitAtFailpoint(name string, purpose reqPurpose, act action) {
	h.held.push(heldAction{purpose: purpose, act: act})
	h.passing++
	defer func() { h.passing-- }()
	h.env.failpoint(name, h.onResume)
}

// resumeHeld is every failpoint's continuation: it sends the action the
// Failpoint call under way passed, or else the oldest waiting. It is taken
// off the queue first, so a reply that comes back at once (a transport
// that delivers synchronously) finds the queue consistent.
func (h *holder) resumeHeld() {
	var a heldAction
	var ok bool
	if h.passing > 0 {
		a, ok = h.held.popNewest()
	} else {
		a, ok = h.held.pop()
	}
	if !ok {
		violated("failpoint-continues-once", "a failpoint continuation ran with no write or checkpoint waiting")
	}
	h.sendHeld(a.purpose, a.act)
}
