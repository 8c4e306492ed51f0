package lease_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// lean is an environment that allocates nothing in the steady state, so
// that testing.AllocsPerRun measures the lease core alone: a manual clock
// whose timers are recycled, a transport that keeps the last message per
// destination, and a map store that keeps what it is given.
type lean struct {
	now    time.Duration
	timers []*leanTimer // pending, unordered
	free   []*leanTimer
	sent   []leanMsg
}

type leanTimer struct {
	c       *lean
	at      time.Duration
	f       func()
	stopped bool
}

type leanMsg struct {
	to lease.Addr
	m  lease.Message
}

func (c *lean) Now() time.Duration { return c.now }

func (c *lean) AfterFunc(d time.Duration, f func()) lease.Timer {
	if len(c.free) == 0 {
		c.sweep()
	}
	var t *leanTimer
	if n := len(c.free); n > 0 {
		t, c.free = c.free[n-1], c.free[:n-1]
	} else {
		t = &leanTimer{c: c}
	}
	t.at, t.f, t.stopped = c.now+d, f, false
	c.timers = append(c.timers, t)
	return t
}

func (t *leanTimer) Stop() bool {
	if t.stopped {
		return false
	}
	t.stopped = true
	return true
}

// sweep recycles the stopped timers.
func (c *lean) sweep() {
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.stopped {
			c.free = append(c.free, t)
		} else {
			kept = append(kept, t)
		}
	}
	clear(c.timers[len(kept):])
	c.timers = kept
}

// fireNext advances to the earliest live timer and runs it; false if none.
func (c *lean) fireNext() bool {
	best := -1
	for i, t := range c.timers {
		if !t.stopped && (best < 0 || t.at < c.timers[best].at) {
			best = i
		}
	}
	// Stopped timers are recycled; the fired one too, after it ran.
	kept := c.timers[:0]
	var fire *leanTimer
	for i, t := range c.timers {
		switch {
		case i == best:
			fire = t
		case t.stopped:
			c.free = append(c.free, t)
		default:
			kept = append(kept, t)
		}
	}
	c.timers = kept
	if fire == nil {
		return false
	}
	c.now = max(c.now, fire.at)
	fire.stopped = true // fired: Stop reports false from now on
	fire.f()
	c.free = append(c.free, fire)
	return true
}

func (c *lean) Send(to lease.Addr, m lease.Message) { c.sent = append(c.sent, leanMsg{to, m}) }

type leanStore map[string][]byte

func (s leanStore) Get(key string) ([]byte, bool) { v, ok := s[key]; return v, ok }
func (s leanStore) Put(key string, value []byte)  { s[key] = value }
func (s leanStore) Delete(key string)             { delete(s, key) }
func (s leanStore) Sync() error                   { return nil }

// TestSteadyStateAllocations drives a holder, a grantor and a resource on
// one lean clock and network, and measures what a renewal cycle and a
// write cycle allocate once the lease is held.
func TestSteadyStateAllocations(t *testing.T) {
	c := &lean{}
	env := func(self lease.Addr) lease.Env {
		return lease.Env{Self: self, Clock: c, Net: c, Store: leanStore{}, Rand: rand.New(rand.NewPCG(1, 2))}
	}
	cfg := testConfig()
	g, err := lease.NewGrantor(env(grantorAddr), cfg)
	require.NoError(t, err)
	r, err := lease.NewResource(env(resourceAddr))
	require.NoError(t, err)
	h, err := lease.NewHolder(env("h1"), cfg, grantorAddr, resourceAddr)
	require.NoError(t, err)
	nodes := map[lease.Addr]lease.Node{grantorAddr: g, resourceAddr: r, "h1": h}
	settle := func() { // deliver every message at once, replies included
		for i := 0; i < len(c.sent); i++ { // delivering may append
			m := c.sent[i]
			nodes[m.to].Deliver(m.m.Client, m.m)
		}
		c.sent = c.sent[:0]
	}
	h.Acquire("lock", lease.AcquireOptions{})
	settle()
	grant, ok := h.Valid("lock")
	require.True(t, ok, "the lease is held")

	renewal := func() { // the renew timer fires, the renewal and its reply cross
		require.True(t, c.fireNext())
		settle()
	}
	for range 20 { // warm up: tables and free lists reach their size
		renewal()
	}
	assert.Zero(t, testing.AllocsPerRun(100, renewal), "a renewal cycle allocates nothing")
	g2, ok := h.Valid("lock")
	require.True(t, ok, "still held after the renewals")
	assert.Equal(t, grant.Token, g2.Token)

	value := []byte("v")
	write := func() {
		h.Write("lock", "x", value, nil)
		settle()
	}
	for range 20 {
		write()
	}
	// The holder copies the caller's value (the message carries it away)
	// and the resource stores token ‖ value: two allocations, no more.
	assert.LessOrEqual(t, testing.AllocsPerRun(100, write), 2.0, "a write cycle allocates at most two values")
	assert.Equal(t, grant.Token, r.(lease.FenceLookup).Highest("lock"))
}
