package gohost

import (
	"fmt"
	"math"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// Clock is a node's own clock, for code that takes an injectable clock
// (k8s.io/utils/clock, clockwork): it reads the bubble's clock through the
// node's drift and wall steps from the schedule. Its shape is the union of
// those two interfaces, so an adapter is a few lines of forwarding methods
// (Timer and Ticker have both C and Chan and satisfy both libraries'
// timer and ticker interfaces as they are).
//
// The model is the event host's (sim.DriftClock): a monotonic clock that
// runs at rate 1+drift of true time and never jumps, and a wall clock that
// is the monotonic clock plus every step so far. Now returns the wall
// reading, without a monotonic reading (Go's cannot be forged outside the
// runtime), so a step shows in Now, Since, Until and in any comparison of
// readings: the clock of a program whose times are wall times (read back
// from a server or from storage). Timers, tickers, After and Sleep run on
// the monotonic clock, as Go's do: drift moves them, a step does not. A node
// running 5% fast sees its 1 s timer fire after 952 ms of true time.
//
// The clock is the node's hardware: drift and steps survive crashes. The
// timers of a life stop when it crashes (a crashed process runs no
// callbacks). With no clock fault, Now equals time.Now (wall part).
type Clock interface {
	// Now returns the node's wall clock reading.
	Now() time.Time
	// Since returns Now().Sub(t).
	Since(t time.Time) time.Duration
	// Until returns t.Sub(Now()).
	Until(t time.Time) time.Duration
	// Sleep blocks until d has passed on the node's monotonic clock.
	Sleep(d time.Duration)
	// After returns NewTimer(d).C().
	After(d time.Duration) <-chan time.Time
	// Tick returns NewTicker(d).C(), or nil when d <= 0, as time.Tick.
	Tick(d time.Duration) <-chan time.Time
	// NewTimer returns a timer that sends the node's Now on its channel
	// once d has passed on the node's monotonic clock.
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine once d has passed on the
	// node's monotonic clock; the timer's channels are nil.
	AfterFunc(d time.Duration, f func()) Timer
	// NewTicker returns a ticker that sends the node's Now every d of the
	// node's monotonic clock, dropping ticks a slow receiver misses. It
	// panics when d <= 0, as time.NewTicker.
	NewTicker(d time.Duration) Ticker
}

// Timer is a timer on a node's Clock. Stop and Reset have time.Timer's
// semantics since Go 1.23: after they return, no stale value is received.
type Timer interface {
	// C returns the timer's channel (k8s.io/utils/clock.Timer).
	C() <-chan time.Time
	// Chan returns the timer's channel (clockwork.Timer).
	Chan() <-chan time.Time
	// Stop stops the timer; it reports whether the call stopped it
	// before it fired.
	Stop() bool
	// Reset re-arms the timer for d from now; it reports whether the
	// timer was active.
	Reset(d time.Duration) bool
}

// Ticker is a ticker on a node's Clock.
type Ticker interface {
	// C returns the ticker's channel (k8s.io/utils/clock.Ticker).
	C() <-chan time.Time
	// Chan returns the ticker's channel (clockwork.Ticker).
	Chan() <-chan time.Time
	// Stop stops the ticker; no tick is received after it returns.
	Stop()
	// Reset stops the ticker and restarts it with period d; it panics
	// when d <= 0.
	Reset(d time.Duration)
}

// nodeClock is a node's clock across its lives. Under h.mu.
type nodeClock struct {
	mono sim.DriftClock // reads 0 at the start of the run
	step time.Duration  // the sum of the wall steps so far
	used bool           // some life of the node read it
}

// Clock returns the node's own clock: the bubble's clock through the
// node's drift and wall steps (see [Clock]). Using it is what makes the
// schedule's drift and step faults apply to the node's code; time.Now
// stays the bubble's one clock.
func (n *Node) Clock() Clock { return lifeClock{n} }

// lifeClock is a life's view of its node's clock.
type lifeClock struct{ n *Node }

// mono returns the node's monotonic reading now. Callers hold mu.
func (n *Node) mono() time.Duration {
	c := &n.ns.clock
	c.used = true
	return c.mono.At(sim.Time(n.h.now()))
}

// wall returns the node's wall reading now. Callers hold mu.
func (n *Node) wall() time.Time {
	return n.h.t0.Add(n.mono() + n.ns.clock.step).Round(0)
}

// trueWait returns how long, in true time, until the node's monotonic
// clock reads due. Callers hold mu.
func (n *Node) trueWait(due time.Duration) time.Duration {
	at := n.ns.clock.mono.TrueAt(due)
	return max(time.Duration(at)-n.h.now(), 0)
}

func (c lifeClock) Now() time.Time {
	h := c.n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	return c.n.wall()
}

func (c lifeClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c lifeClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

func (c lifeClock) Sleep(d time.Duration) {
	if d <= 0 {
		c.n.h.mu.Lock()
		c.n.ns.clock.used = true
		c.n.h.mu.Unlock()
		return
	}
	<-c.NewTimer(d).C()
}

func (c lifeClock) After(d time.Duration) <-chan time.Time { return c.NewTimer(d).C() }

func (c lifeClock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return c.NewTicker(d).C()
}

func (c lifeClock) NewTimer(d time.Duration) Timer {
	return c.n.newClockTimer(timerChan, d, 0, nil)
}

func (c lifeClock) AfterFunc(d time.Duration, f func()) Timer {
	return c.n.newClockTimer(timerFunc, d, 0, f)
}

func (c lifeClock) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("gohost: non-positive interval for Clock.NewTicker")
	}
	return tickerOf{c.n.newClockTimer(timerTick, d, d, nil)}
}

// What a clockTimer does when it fires.
const (
	timerChan = iota // send Now on ch, once
	timerFunc        // call f in its own goroutine, once
	timerTick        // send Now on ch, dropping it if full, every period
)

// clockTimer is a timer, AfterFunc or ticker on a node's clock: a bubble
// timer (time.AfterFunc) set for the true instant at which the node's
// monotonic clock reaches due, re-timed when the node's drift changes.
type clockTimer struct {
	n      *Node
	kind   int
	f      func()
	ch     chan time.Time
	rt     *time.Timer
	due    time.Duration // on the node's monotonic clock
	period time.Duration // tickers only
	active bool          // armed and not yet fired or stopped; under h.mu
}

// newClockTimer makes and arms a timer of the life n.
func (n *Node) newClockTimer(kind int, d, period time.Duration, f func()) *clockTimer {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	t := &clockTimer{n: n, kind: kind, f: f, period: period}
	if kind != timerFunc {
		t.ch = make(chan time.Time, 1)
	}
	if len(n.timers) >= n.timersKept*2+16 {
		kept := n.timers[:0]
		for _, x := range n.timers {
			if x.active {
				kept = append(kept, x)
			}
		}
		clear(n.timers[len(kept):])
		n.timers, n.timersKept = kept, len(kept)
	}
	n.timers = append(n.timers, t)
	t.arm(d)
	return t
}

// arm sets the timer to fire once d has passed on the node's monotonic
// clock. Callers hold mu.
func (t *clockTimer) arm(d time.Duration) {
	t.due = t.n.mono() + max(d, 0)
	t.active = true
	wait := t.n.trueWait(t.due)
	if t.rt == nil {
		t.rt = time.AfterFunc(wait, t.fire)
	} else {
		t.rt.Reset(wait)
	}
}

// retime moves the bubble timer to the true instant the node's clock now
// reaches due at (after a drift change). A timer whose callback already
// started is left to it: the callback fires it if its due has come. Callers
// hold mu.
func (t *clockTimer) retime() {
	if t.active && t.rt.Stop() {
		t.rt.Reset(t.n.trueWait(t.due))
	}
}

// fire is the bubble timer's callback. It fires only an active timer of a
// live life whose due the node's clock has reached: a callback left over
// from before a Reset or a Stop does nothing.
func (t *clockTimer) fire() {
	h := t.n.h
	h.mu.Lock()
	if !t.active || t.n.dead || t.n.mono() < t.due {
		h.mu.Unlock()
		return
	}
	switch t.kind {
	case timerFunc:
		t.active = false
		h.mu.Unlock()
		t.f()
		return
	case timerChan:
		t.active = false
	case timerTick:
		t.due += t.period
		t.rt.Reset(t.n.trueWait(t.due))
	}
	select {
	case t.ch <- t.n.wall():
	default:
	}
	h.mu.Unlock()
}

// stopLocked stops the timer and drops a value not yet received; it
// reports whether the timer was active or its value unreceived. Callers
// hold mu.
func (t *clockTimer) stopLocked() bool {
	was := t.active
	t.active = false
	t.rt.Stop()
	if t.ch != nil {
		select {
		case <-t.ch:
			was = true
		default:
		}
	}
	return was
}

func (t *clockTimer) C() <-chan time.Time    { return t.ch }
func (t *clockTimer) Chan() <-chan time.Time { return t.ch }

func (t *clockTimer) Stop() bool {
	h := t.n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	return t.stopLocked()
}

// Reset re-arms the timer (or restarts the ticker with period d).
func (t *clockTimer) Reset(d time.Duration) bool {
	if t.kind == timerTick && d <= 0 {
		panic("gohost: non-positive interval for Ticker.Reset")
	}
	h := t.n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	was := t.stopLocked()
	if t.kind == timerTick {
		t.period = d
	}
	t.arm(d)
	return was
}

// tickerOf hides the timer's bool results behind the Ticker interface.
type tickerOf struct{ *clockTimer }

func (t tickerOf) Stop()                 { t.clockTimer.Stop() }
func (t tickerOf) Reset(d time.Duration) { t.clockTimer.Reset(d) }

// applyClock applies a drift or step event to its node's clock and
// re-times the current life's timers after a drift change. Callers hold
// mu, on the host's goroutine.
func (h *host) applyClock(e faults.Event) {
	ns := h.byName[e.Node]
	switch e.Kind {
	case faults.KindDrift:
		h.setDrift(ns, e.Drift)
	case faults.KindStep:
		ns.clock.step += e.Step
		h.openWindow(history.FaultStep, e.Node, fmt.Sprintf("step %v", e.Step), true) // evidence, as the event host's
	}
	h.clockFaults = append(h.clockFaults, e)
}

// setDrift sets ns's drift from now on and re-times its timers. Callers
// hold mu.
func (h *host) setDrift(ns *nodeState, drift float64) {
	ns.clock.mono.SetDrift(sim.Time(h.now()), drift)
	if n := ns.cur; n != nil {
		for _, t := range n.timers {
			t.retime()
		}
	}
}

// maxDriftPPB is the largest drift, in parts per billion, that the run
// applied to a clock its node's code read (Node.Clock): what P1 compares
// with rho to tell an assumption exceeded from a bug. Callers hold mu.
func (h *host) maxDriftPPB() int64 {
	var most int64
	for _, e := range h.clockFaults {
		if e.Kind == faults.KindDrift && h.byName[e.Node].clock.used {
			most = max(most, int64(math.Round(math.Abs(e.Drift)*1e9)))
		}
	}
	return most
}

// clockNotes says, for each clock fault the run applied, whether code read
// it: drift and steps apply to code that uses Node.Clock, never to
// time.Now. Callers hold mu.
func (h *host) clockNotes() {
	for _, e := range h.clockFaults {
		ns := h.byName[e.Node]
		if ns.clock.used {
			h.notes(fmt.Sprintf("%s: applied to Node.Clock only (node %s's code used it); time.Now and package time's timers read the bubble's one clock", e, e.Node))
		} else {
			h.notes(fmt.Sprintf("%s: not applied to anything node %s's code read: it never used Node.Clock, and time.Now reads the bubble's one clock", e, e.Node))
		}
	}
}
