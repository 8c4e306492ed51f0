package realtime

import (
	"time"

	"github.com/leasesim/leasesim/lease"
)

// clock is a node's monotonic and wall clock. Its timers post their
// callbacks to the node's loop.
type clock struct {
	start  time.Time
	loop   *loop
	timers map[*timer]struct{} // pending; touched only on the loop, or after it ended
}

func newClock(l *loop) *clock {
	return &clock{start: time.Now(), loop: l, timers: make(map[*timer]struct{})}
}

// Now returns the time since the node started, from Go's monotonic clock.
func (c *clock) Now() time.Duration { return time.Since(c.start) }

// WallNow returns the wall-clock time.
func (c *clock) WallNow() time.Time { return time.Now() }

// AfterFunc runs f on the loop after d. It must be called on the loop.
func (c *clock) AfterFunc(d time.Duration, f func()) lease.Timer {
	t := &timer{c: c}
	c.timers[t] = struct{}{}
	t.t = time.AfterFunc(d, func() {
		c.loop.post(func() {
			if t.stopped || t.fired {
				return
			}
			t.fired = true
			delete(c.timers, t)
			f()
		}, false)
	})
	return t
}

// stopAll stops every pending timer. It is called once the loop has ended.
func (c *clock) stopAll() {
	for t := range c.timers { // order does not matter: every timer is stopped
		t.t.Stop()
	}
	clear(c.timers)
}

// timer is a lease.Timer whose flags are touched only on the loop, so Stop
// is exact: it reports true iff the callback has not run and never will.
type timer struct {
	c       *clock
	t       *time.Timer
	stopped bool
	fired   bool
}

// Stop prevents the callback if it has not run. It must be called on the loop.
func (t *timer) Stop() bool {
	if t.stopped || t.fired {
		return false
	}
	t.stopped = true
	t.t.Stop()
	delete(t.c.timers, t)
	return true
}
