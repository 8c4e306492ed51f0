package sim

import (
	"fmt"
	"time"
)

// Result is what a run reports when it stops.
type Result struct {
	Now       Time   // true time reached
	Events    uint64 // events executed
	TraceHash uint64 // hash of every trace record
	// UndigestedSends counts sent payloads whose contents the hash could not
	// cover (see Digester); zero means the hash covers every message.
	UndigestedSends uint64
	// Err is nil when the run reached its end time (or ran out of events).
	// Otherwise it says why it stopped early: a *LimitError, or the reason
	// given to Stop.
	Err error
}

// TraceHashString returns the trace hash as 16 hex digits.
func (r Result) TraceHashString() string { return fmt.Sprintf("%016x", r.TraceHash) }

// RunFor runs d of true time from now.
func (w *World) RunFor(d time.Duration) Result { return w.RunUntil(w.now.Add(d)) }

// RunUntil executes events in (time, sequence) order until true time end,
// an empty queue, a limit, or Stop. Time then stands at end unless the run
// stopped early; with end == Never it stands at the last event. Events due
// at Never (a timer beyond any representable time) never run. A run that
// would pass Limits.Duration stops there with a *LimitError, as does one
// that would execute more than Limits.Events events or hold more than
// Limits.Queue pending events.
func (w *World) RunUntil(end Time) Result {
	hardEnd := Time(w.cfg.Limits.Duration)
	for w.halt == nil {
		next := w.peek()
		if next > end || next == Never {
			break
		}
		if next > hardEnd {
			w.now = hardEnd
			w.limitHit(LimitDuration)
			break
		}
		if w.events >= w.cfg.Limits.Events {
			w.limitHit(LimitEvents)
			break
		}
		w.step()
		if w.q.len()-w.stale > w.cfg.Limits.Queue {
			w.limitHit(LimitQueue)
		}
	}
	if w.halt == nil && end != Never && end > w.now {
		w.now = min(end, hardEnd)
		if end > hardEnd {
			w.limitHit(LimitDuration)
		}
	}
	err := w.halt
	if ferr := w.trace.flush(); err == nil {
		err = ferr
	}
	return Result{Now: w.now, Events: w.events, TraceHash: w.trace.hash, UndigestedSends: w.undigested, Err: err}
}

// Step executes the next event, if any, and reports whether there was one.
// It observes no limits; RunUntil does.
func (w *World) Step() bool {
	if w.halt != nil || w.peek() == Never {
		return false
	}
	w.step()
	return true
}

// peek drops stale entries (cancelled or re-timed timers) from the top of
// the queue and returns the time of the earliest live event, or Never.
func (w *World) peek() Time {
	for w.q.len() > 0 {
		top := w.q.top()
		if w.live(top) {
			return top.at
		}
		w.q.pop() // top finished any taken event
		w.stale--
	}
	return Never
}

// step executes the earliest event, which peek has found live.
func (w *World) step() {
	ev := w.q.take()
	w.now = ev.at
	if ev.kind() == evTimer {
		w.fireTimer(ev)
	} else {
		w.deliver(ev)
	}
	w.q.finish()
}

func (w *World) fireTimer(ev event) {
	t := &w.timers[ev.ref]
	if t.node >= 0 {
		switch w.nodes[t.node].state {
		case Paused:
			n := w.nodes[t.node]
			t.deferred = true
			n.deferred = append(n.deferred, ev)
			return
		case Crashed:
			panic("sim: invariant crashed-node-has-no-timers: a timer of a crashed node fired")
		}
	}
	w.events++
	w.record(RecTimer, t.node, -1, uint64(ev.ref), 0)
	run, via := t.run, t.via
	w.freeTimer(ev.ref, false)
	if via != nil {
		via(run.(Func)) // SetTimerVia sets via only beside a Func
		return
	}
	run.Run()
}

func (w *World) deliver(ev event) {
	m := &w.msgs[ev.ref]
	if m.gen != ev.gen {
		panic("sim: invariant message-slot-generation: a delivery event outlived its message")
	}
	n := w.nodes[m.to]
	if n.state == Paused {
		n.deferred = append(n.deferred, ev)
		return
	}
	w.events++
	msg := m.message
	last := w.freeMessage(ev.ref)
	w.net.delivered(msg.from, msg.to)
	switch {
	case n.state == Crashed:
		w.record(RecDrop, msg.from, msg.to, msg.id, uint64(DropCrashed))
	case w.net.Blocked(msg.from, msg.to):
		w.record(RecDrop, msg.from, msg.to, msg.id, uint64(DropPartition))
	case n.handler == nil:
		w.record(RecDrop, msg.from, msg.to, msg.id, uint64(DropUnhandled))
	default:
		w.record(RecDeliver, msg.to, msg.from, msg.id, 0)
		n.handler(msg.from, msg.payload)
	}
	released(&msg, last)
}
