package lease_test

import (
	"fmt"
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

// leanCluster is a grantor, a fenced store and one holder on one lean
// clock and network, with the holder holding "lock".
type leanCluster struct {
	c     *lean
	g     lease.Grantor
	r     lease.Resource
	h     lease.Holder
	nodes map[lease.Addr]lease.Node
	grant lease.Grant
}

func newLeanCluster(t testing.TB) *leanCluster {
	c := &lean{}
	env := func(self lease.Addr) lease.Env {
		return lease.Env{Self: self, Clock: c, Net: c, Store: leanStore{}, Rand: rand.New(rand.NewPCG(1, 2))}
	}
	cfg := testConfig()
	k := &leanCluster{c: c}
	var err error
	k.g, err = lease.NewGrantor(env(grantorAddr), cfg)
	require.NoError(t, err)
	k.r, err = lease.NewResource(env(resourceAddr))
	require.NoError(t, err)
	k.h, err = lease.NewHolder(env("h1"), cfg, grantorAddr, resourceAddr)
	require.NoError(t, err)
	k.nodes = map[lease.Addr]lease.Node{grantorAddr: k.g.(lease.Node), resourceAddr: k.r.(lease.Node), "h1": k.h.(lease.Node)}
	k.h.Acquire("lock", lease.AcquireOptions{})
	k.settle()
	var ok bool
	k.grant, ok = k.h.Valid("lock")
	require.True(t, ok, "the lease is held")
	return k
}

// settle delivers every message at once, replies included.
func (k *leanCluster) settle() {
	for i := 0; i < len(k.c.sent); i++ { // delivering may append
		m := k.c.sent[i]
		k.nodes[m.to].Deliver(m.m.Client, m.m)
	}
	k.c.sent = k.c.sent[:0]
}

// renewal lets the renew timer fire and the renewal and its reply cross.
func (k *leanCluster) renewal(t testing.TB) {
	if !k.c.fireNext() { // not require.True: its Helper call would dominate the benchmark
		t.Fatal("no timer to fire: the renewal cycle stopped")
	}
	k.settle()
}

// write writes value under the lease and lets the write and its reply cross.
func (k *leanCluster) write(value []byte) {
	k.h.Write("lock", "x", value, nil)
	k.settle()
}

// TestSteadyStateAllocations drives a holder, a grantor and a resource on
// one lean clock and network, and bounds what a renewal cycle and a write
// cycle allocate once the lease is held: the core keeps no pools, so each
// request allocates what it needs, and nothing else grows.
func TestSteadyStateAllocations(t *testing.T) {
	k := newLeanCluster(t)
	renewal := func() { k.renewal(t) }
	for range 20 { // warm up: tables reach their size
		renewal()
	}
	assert.LessOrEqual(t, testing.AllocsPerRun(100, renewal), 1.0, "a renewal cycle allocates its pending request")
	g2, ok := k.h.Valid("lock")
	require.True(t, ok, "still held after the renewals")
	assert.Equal(t, k.grant.Token, g2.Token)

	value := []byte("v")
	write := func() { k.write(value) }
	for range 20 {
		write()
	}
	// The holder's copy of the caller's value (the message carries it
	// away), nothing else: the write waits at its failpoint in the
	// holder's queue and its pending request is kept by value, the
	// resource stores the value as the message carries it, and a small
	// token's encoding is shared.
	assert.LessOrEqual(t, testing.AllocsPerRun(100, write), 1.0, "a write cycle allocates its copy of the value")
	assert.Equal(t, k.grant.Token, k.r.(lease.FenceLookup).Highest("lock"))
}

// A holder with hundreds of leases renews them all at once, so as many
// requests are in flight: once warm a round allocates one pending per
// renewal, and nothing grows with the number of sessions beyond that.
func TestManySessionsRenewWithOneAllocationEach(t *testing.T) {
	const leases = 200
	k := newLeanCluster(t)
	for i := 1; i < leases; i++ {
		k.h.Acquire(fmt.Sprintf("r%d", i), lease.AcquireOptions{})
	}
	k.settle()
	round := func() {
		for range leases { // every renewal sent before any reply comes back
			if !k.c.fireNext() {
				t.Fatal("no timer to fire")
			}
		}
		k.settle()
	}
	for range 5 {
		round()
	}
	for i := 1; i < leases; i++ {
		_, ok := k.h.Valid(fmt.Sprintf("r%d", i))
		require.True(t, ok, "r%d held", i)
	}
	assert.LessOrEqual(t, testing.AllocsPerRun(10, round), float64(leases), "a round of %d renewals", leases)
}

// BenchmarkSteadyState measures the lease core alone (on the lean
// environment) for one renewal cycle and one write cycle of a held lease.
func BenchmarkSteadyState(b *testing.B) {
	b.Run("renewal", func(b *testing.B) {
		k := newLeanCluster(b)
		b.ReportAllocs()
		for b.Loop() {
			k.renewal(b)
		}
	})
	b.Run("write", func(b *testing.B) {
		k := newLeanCluster(b)
		value := []byte("v")
		b.ReportAllocs()
		for b.Loop() {
			k.write(value)
			if len(k.c.timers) > 64 { // let spent request timers be recycled
				k.c.sweep()
			}
		}
	})
}
