package sim

import (
	"fmt"
	"time"
)

// Pause freezes the node for d of true time: it processes nothing, its
// clocks keep running, and timers and messages wait until it resumes.
// Pausing a paused node extends the pause; pausing a crashed node does
// nothing.
func (n *Node) Pause(d time.Duration) {
	if n.state == Crashed || d <= 0 {
		return
	}
	until := n.w.now.Add(d)
	n.w.fault(FaultPause, n.id, -1, int64(d), "")
	if n.state == Paused && until <= n.pauseUntil {
		return
	}
	n.state = Paused
	n.pauseUntil = until
	n.pauseEpoch++
	epoch := n.pauseEpoch
	n.w.At(until, func() {
		if n.state == Paused && n.pauseEpoch == epoch {
			n.Resume()
		}
	})
}

// Resume ends a pause at once. Events that waited run now, in the order they
// would have run.
func (n *Node) Resume() {
	if n.state != Paused {
		return
	}
	n.state = Up
	n.pauseEpoch++
	n.w.fault(FaultResume, n.id, -1, 0, "")
	for _, ev := range n.deferred {
		seq := n.w.q.push(n.w.now, ev.kind(), ev.ref, ev.gen)
		if ev.kind() == evTimer {
			t := &n.w.timers[ev.ref]
			t.deferred, t.seq = false, seq
		}
	}
	n.deferred = n.deferred[:0]
}

// Crash stops the node: its timers are cancelled, waiting events dropped,
// its handler removed and its unsynced writes lost. Messages in flight to it
// are dropped when they arrive.
func (n *Node) Crash() {
	if n.state == Crashed {
		return
	}
	n.state = Crashed
	n.pauseEpoch++
	n.w.fault(FaultCrash, n.id, -1, 0, "")
	for _, ev := range n.deferred {
		if ev.kind() == evDeliver {
			m := n.w.msgs[ev.ref].message
			last := n.w.freeMessage(ev.ref)
			n.w.net.delivered(m.from, m.to)
			n.w.record(RecDrop, m.from, m.to, m.id, uint64(DropCrashed))
			released(&m, last)
		}
	}
	n.deferred = n.deferred[:0]
	for slot := range n.w.timers {
		if t := &n.w.timers[slot]; t.live && t.node == n.id {
			n.w.freeTimer(uint32(slot), !t.deferred)
		}
	}
	n.handler = nil
	n.storage.crash()
}

// Restart boots a crashed node again: a new incarnation with the same
// clocks and durable storage. The boot function runs at once, inside the
// call, so the new incarnation has its handler installed before any message
// can reach it. Restarting a node that is not crashed does nothing.
func (n *Node) Restart() {
	if n.state != Crashed {
		return
	}
	n.state = Up
	n.incarnation++
	n.w.fault(FaultRestart, n.id, -1, int64(n.incarnation), "")
	n.runBoot()
}

// SetDrift sets the monotonic clock's rate to 1+drift from now on; drift
// 0.01 runs 1% fast. Drift must lie in (-1, 1]: a clock never stops or runs
// backwards, and runs at most twice as fast as true time (faults.MaxDrift).
// Pending timers are re-timed so that they still fire when the local clock
// reaches their deadline.
func (n *Node) SetDrift(drift float64) {
	if !(drift > -1 && drift <= 1) {
		panic(fmt.Sprintf("sim: SetDrift(%v) on %s: drift must be in (-1, 1]", drift, n.name))
	}
	ppb := int64(drift * ppbOne) // floating point once, per fault, never per event
	n.clock.setDrift(n.w.now, ppb)
	n.w.fault(FaultDrift, n.id, -1, ppb, "")
	w := n.w
	for slot := range w.timers {
		t := &w.timers[slot]
		if !t.live || t.node != n.id || t.deferred {
			continue
		}
		t.ver++
		// Its old sequence: timers due at the same time keep their order,
		// which then does not depend on the order of their slots.
		w.pushTimerSeq(max(n.clock.trueAt(t.due), w.now), uint32(slot), t.seq)
		w.staled()
	}
}

// StepWall steps the wall clock by d (either way). The monotonic clock does
// not move.
func (n *Node) StepWall(d time.Duration) {
	n.wallOffset += d
	n.w.fault(FaultStep, n.id, -1, int64(d), "")
}

func (n *Node) dropDeferredTimer(slot uint32) {
	kept := n.deferred[:0]
	for _, ev := range n.deferred {
		if ev.kind() != evTimer || ev.ref != slot {
			kept = append(kept, ev)
		}
	}
	n.deferred = kept
}
