package sim

import "time"

// timerSlot holds a pending callback. Events refer to it by index and
// version, so cancelling or re-timing a timer never touches the heap: the
// old queue entry just goes stale and is skipped when it reaches the top.
type timerSlot struct {
	run      Callback
	via      func(func())  // runs run, a Func, when set (SetTimerVia)
	due      time.Duration // local monotonic deadline (node timers)
	node     NodeID        // -1: a world call, not subject to pause or crash
	gen      uint32        // identity handed out in TimerID; bumped when freed
	ver      uint32        // version of the live queue entry; bumped when freed or re-timed
	live     bool
	deferred bool // fired while its node was paused; waits in node.deferred
	// seq is the sequence of its queue entry: a re-timed timer keeps it
	// (pushTimerSeq), and with it its place among events due at the same
	// time.
	seq uint64
}

// message is a message on the wire.
type message struct {
	payload  any
	release  func(any) // called when no copy is left (SendRelease); may be nil
	id       uint64
	from, to NodeID
}

type msgSlot struct {
	message
	gen uint32
	// twin is 1 + the slot of the other copy of a duplicated message while
	// both are queued, else 0: the payload is released with the last copy.
	twin uint32
}

// noSlot is no message slot: the copy was not queued.
const noSlot = ^uint32(0)

// Callback is what a timer runs, as a value with a method: a host that
// keeps state per timer makes its state a Callback and arms it with
// SetTimerCallback, which costs no closure. A func() is one (Func).
type Callback interface{ Run() }

// Func makes a function a Callback.
type Func func()

// Run calls f.
func (f Func) Run() { f() }

// compactMin is the number of stale queue entries below which the queue is
// never compacted: compacting a small queue costs more than it saves.
const compactMin = 1024

func (w *World) allocTimer(run Callback, node NodeID) uint32 {
	var slot uint32
	if n := len(w.free); n > 0 {
		slot = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		w.timers = append(w.timers, timerSlot{gen: 1, ver: 1})
		slot = uint32(len(w.timers) - 1)
	}
	t := &w.timers[slot]
	t.run, t.node, t.live, t.deferred = run, node, true, false
	return slot
}

// pushTimer queues the live entry of a timer slot.
func (w *World) pushTimer(at Time, slot uint32) {
	t := &w.timers[slot]
	t.seq = w.q.push(at, evTimer, slot, t.ver)
}

// pushTimerSeq queues the live entry of a timer slot with sequence seq: a
// sequence the queue reserved for it (World.Series), or the one it had
// before it was re-timed (Node.SetDrift).
func (w *World) pushTimerSeq(at Time, slot uint32, seq uint64) {
	t := &w.timers[slot]
	t.seq = seq
	w.q.pushSeq(at, seq, evTimer, slot, t.ver)
}

// freeTimer releases a slot. If the slot's event is still in the queue (the
// timer is cancelled rather than fired), that event goes stale.
func (w *World) freeTimer(slot uint32, queued bool) {
	t := &w.timers[slot]
	t.run, t.via, t.live, t.deferred = nil, nil, false, false
	t.gen++
	t.ver++
	w.free = append(w.free, slot)
	if queued {
		w.staled()
	}
}

// staled counts one more stale queue entry and compacts the queue when stale
// entries outnumber live ones, so that a node which keeps re-arming and
// cancelling a long timeout (an election or lease timer reset on every
// message) does not grow the queue without bound.
func (w *World) staled() {
	w.stale++
	if w.stale < compactMin || 2*w.stale < w.q.len() {
		return
	}
	w.q.filter(w.live)
	w.stale = 0
}

// live reports whether a queued event still stands: messages always do; a
// timer event does while its slot's version matches.
func (w *World) live(e *event) bool {
	return e.kind() == evDeliver || w.timers[e.ref].ver == e.gen
}

func (w *World) scheduleMessage(at Time, m message) uint32 {
	var slot uint32
	if n := len(w.msgFree); n > 0 {
		slot = w.msgFree[n-1]
		w.msgFree = w.msgFree[:n-1]
	} else {
		w.msgs = append(w.msgs, msgSlot{gen: 1})
		slot = uint32(len(w.msgs) - 1)
	}
	s := &w.msgs[slot]
	s.message = m
	w.q.push(at, evDeliver, slot, s.gen)
	return slot
}

// twin links the two queued copies of a duplicated message.
func (w *World) twin(a, b uint32) {
	w.msgs[a].twin, w.msgs[b].twin = b+1, a+1
}

// freeMessage releases a slot and reports whether it held the last queued
// copy of its payload, which may then be released to its sender.
func (w *World) freeMessage(slot uint32) (last bool) {
	s := &w.msgs[slot]
	last = s.twin == 0
	if !last {
		w.msgs[s.twin-1].twin = 0
		s.twin = 0
	}
	s.payload, s.release = nil, nil
	s.gen++
	w.msgFree = append(w.msgFree, slot)
	return last
}

// released hands m's payload back to its sender if this was its last copy.
func released(m *message, last bool) {
	if last && m.release != nil {
		m.release(m.payload)
	}
}
