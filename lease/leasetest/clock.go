package leasetest

import (
	"container/heap"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// Epoch is what every wall clock reads at time zero.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// timer is a pending AfterFunc call of one node incarnation.
type timer struct {
	at      time.Duration
	seq     uint64 // ties break by creation order
	owner   lease.Addr
	life    uint64 // the owner's incarnation; a crash makes the timer dead
	f       func()
	stopped bool
	fired   bool
}

// Stop prevents the call if it has not run yet.
func (t *timer) Stop() bool {
	if t.stopped || t.fired {
		return false
	}
	t.stopped = true
	return true
}

// timerHeap orders timers by time, then creation.
type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}

// nodeClock is one node incarnation's view of the world clock. It is both
// the lease.Clock and the lease.WallClock of the node.
type nodeClock struct {
	w    *World
	self lease.Addr
	life uint64
}

// Now returns the world time; every node shares it (no drift).
func (c nodeClock) Now() time.Duration { return c.w.now }

// WallNow returns Epoch plus the world time.
func (c nodeClock) WallNow() time.Time { return Epoch.Add(c.w.now) }

// AfterFunc schedules f at now+d (at once if d <= 0).
func (c nodeClock) AfterFunc(d time.Duration, f func()) lease.Timer {
	c.w.seq++
	t := &timer{at: c.w.now + max(d, 0), seq: c.w.seq, owner: c.self, life: c.life, f: f}
	heap.Push(&c.w.timers, t)
	return t
}
