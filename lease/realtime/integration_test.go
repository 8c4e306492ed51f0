package realtime_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/realtimetest"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/realtime"
)

// shortConfig is the real-time tests' lease: a 2s TTL renewed every
// 100ms (realtimetest.Config), so that no assertion here depends on how
// busy the machine is. Only the stories that are an expiry wait one out,
// and they wait side by side (TestLoopback).
func shortConfig() lease.Config { return realtimetest.Config() }

// cluster is a grantor and a resource on loopback.
type cluster struct {
	t        *testing.T
	grantor  *realtime.Grantor
	resource *realtime.Resource
	gObs     *lease.CountingObserver
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	c := &cluster{t: t, gObs: &lease.CountingObserver{}}
	var err error
	c.grantor, err = realtime.StartGrantor(realtime.Options{Addr: "127.0.0.1:0", Config: shortConfig(), Observer: c.gObs})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.grantor.Close()) })
	c.resource, err = realtime.StartResource(realtime.Options{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.resource.Close()) })
	return c
}

func (c *cluster) holder(opts realtime.Options) *realtime.Holder {
	c.t.Helper()
	return c.holderWith(shortConfig().RequestTimeout, opts)
}

// holderWith starts a holder with the given request timeout.
func (c *cluster) holderWith(requestTimeout time.Duration, opts realtime.Options) *realtime.Holder {
	c.t.Helper()
	opts.Addr = "127.0.0.1:0"
	opts.Config = shortConfig()
	opts.Config.RequestTimeout = requestTimeout
	h, err := realtime.StartHolder(opts, c.grantor.Addr(), c.resource.Addr())
	require.NoError(c.t, err)
	return h
}

// eventually waits for cond with a generous deadline: the machine is shared
// and noisy, so tests wait for events, never for durations.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 10*time.Second, 5*time.Millisecond, what)
}

// checkNoLeaks fails if goroutines started during the test outlive it. It
// polls by hand: a helper such as require.Eventually runs goroutines itself.
func checkNoLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines leaked:\n%s", n-before, buf[:runtime.Stack(buf, true)])
		}
	})
}

// writeRetrying writes, retrying after timeouts as a real client of a fenced
// register would: on a loaded machine a reply can be slower than the timeout.
func writeRetrying(ctx context.Context, h *realtime.Holder, resource, key string, value []byte) error {
	for {
		err := h.Write(ctx, resource, key, value)
		if !errors.Is(err, lease.ErrTimeout) || ctx.Err() != nil {
			return err
		}
	}
}

// TestLoopback runs the stories that wait out a TTL side by side, so that
// the 2s TTL costs about one TTL in all; the leak check covers them all.
// They wait rather than compute, so they are not t.Parallel (which
// -parallel, GOMAXPROCS by default, would run two at a time): each runs
// from its own goroutine, as testing allows for t.Run.
func TestLoopback(t *testing.T) {
	checkNoLeaks(t)
	var wg sync.WaitGroup
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"Failover", testLoopbackFailover},
		{"StaleWriteFenced", testLoopbackStaleWriteFenced},
		{"RevokeAndRestart", testLoopbackRevokeAndRestart},
		{"RecorderRecordsAFailover", testRecorderRecordsAFailover},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(tc.name, tc.run)
		}()
	}
	wg.Wait()
}

func testLoopbackFailover(t *testing.T) {
	c := startCluster(t)
	obs1 := &lease.CountingObserver{}
	h1 := c.holder(realtime.Options{Observer: obs1})
	h2 := c.holder(realtime.Options{})
	t.Cleanup(func() { assert.NoError(t, h2.Close()) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	g1, err := h1.AcquireWait(ctx, "job", lease.AcquireOptions{})
	require.NoError(t, err)
	eventually(t, "h1 renews a few times", func() bool { return obs1.Count(lease.EventRenew) >= 3 })
	require.NoError(t, writeRetrying(ctx, h1, "job", "k", []byte("from h1")))

	second := make(chan lease.Grant, 1)
	go func() {
		g, err := h2.AcquireWait(ctx, "job", lease.AcquireOptions{})
		assert.NoError(t, err)
		second <- g
	}()
	require.NoError(t, h1.Kill()) // no release: the lease must expire
	var g2 lease.Grant
	select {
	case g2 = <-second:
	case <-ctx.Done():
		t.Fatal("h2 never got the lease")
	}
	assert.Greater(t, g2.Token, g1.Token, "a new grant has a larger token")
	assert.GreaterOrEqual(t, c.gObs.Count(lease.EventExpired), 1, "the grantor expired h1's lease")

	require.NoError(t, writeRetrying(ctx, h2, "job", "k", []byte("from h2")))
	value, token, err := c.resource.Read(ctx, "job", "k")
	require.NoError(t, err)
	assert.Equal(t, []byte("from h2"), value)
	assert.Equal(t, g2.Token, token)
}

func testLoopbackStaleWriteFenced(t *testing.T) {
	c := startCluster(t)
	unpause := make(chan struct{})
	paused := make(chan struct{})
	obs1 := &lease.CountingObserver{}
	// The stale write is sent once and must be answered, so h1 waits long
	// for replies; that does not change how long it believes.
	h1 := c.holderWith(time.Minute, realtime.Options{Observer: obs1, Failpoint: func(name string, then func()) {
		if name == lease.FailpointBeforeWrite {
			close(paused)
			<-unpause // a stop-the-world pause: the whole node is frozen
		}
		then()
	}})
	t.Cleanup(func() { assert.NoError(t, h1.Close()) })
	h2 := c.holder(realtime.Options{})
	t.Cleanup(func() { assert.NoError(t, h2.Close()) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	g1, err := h1.AcquireWait(ctx, "job", lease.AcquireOptions{})
	require.NoError(t, err)
	stale := make(chan error, 1)
	go func() { stale <- h1.Write(ctx, "job", "k", []byte("stale")) }()
	<-paused

	g2, err := h2.AcquireWait(ctx, "job", lease.AcquireOptions{})
	require.NoError(t, err, "h2 gets the lease while h1 is frozen")
	require.Greater(t, g2.Token, g1.Token)
	require.NoError(t, writeRetrying(ctx, h2, "job", "k", []byte("fresh")))

	close(unpause)
	assert.ErrorIs(t, <-stale, lease.ErrFenced, "the resumed write carries a stale token")
	eventually(t, "h1 reports the fencing", func() bool { return obs1.Count(lease.EventFenced) == 1 })
	_, ok := h1.Valid("job")
	assert.False(t, ok)
	hi, err := c.resource.Highest(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, g2.Token, hi)
}

func testLoopbackRevokeAndRestart(t *testing.T) {
	store := realtime.NewMemStorage()
	cfg := shortConfig()
	g, err := realtime.StartGrantor(realtime.Options{Addr: "127.0.0.1:0", Config: cfg, Store: store})
	require.NoError(t, err)
	r, err := realtime.StartResource(realtime.Options{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Close()) })
	h, err := realtime.StartHolder(realtime.Options{Addr: "127.0.0.1:0", Config: cfg}, g.Addr(), r.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, h.Close()) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	g1, err := h.AcquireWait(ctx, "job", lease.AcquireOptions{})
	require.NoError(t, err)
	rev, err := g.Revoke(ctx, "job")
	require.NoError(t, err)
	assert.Equal(t, h.Addr(), rev.Holder)
	eventually(t, "the holder loses a revoked lease", func() bool {
		gr, ok := h.Valid("job")
		return !ok || gr.Token > g1.Token
	})

	// Restart the grantor on the same store: tokens continue after grace.
	require.NoError(t, g.Close())
	g, err = realtime.StartGrantor(realtime.Options{Addr: string(g.Addr()), Config: cfg, Store: store})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, g.Close()) })
	eventually(t, "the holder holds again after the grace period", func() bool {
		gr, ok := h.Valid("job")
		return ok && gr.Token > g1.Token
	})
}

func TestClosedNodeRefusesCalls(t *testing.T) {
	c := startCluster(t)
	h := c.holder(realtime.Options{})
	require.NoError(t, h.Close())
	_, err := h.AcquireWait(context.Background(), "job", lease.AcquireOptions{})
	assert.ErrorIs(t, err, realtime.ErrClosed)
	assert.ErrorIs(t, h.Write(context.Background(), "job", "k", nil), realtime.ErrClosed)
	assert.NoError(t, h.Close(), "Close is idempotent")
}

func TestAcquireWaitGivesUpWithContext(t *testing.T) {
	checkNoLeaks(t)
	c := startCluster(t)
	h1, h2 := c.holder(realtime.Options{}), c.holder(realtime.Options{})
	t.Cleanup(func() { assert.NoError(t, h1.Close()) })
	t.Cleanup(func() { assert.NoError(t, h2.Close()) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := h1.AcquireWait(ctx, "job", lease.AcquireOptions{})
	require.NoError(t, err)

	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancelShort()
	_, err = h2.AcquireWait(short, "job", lease.AcquireOptions{})
	assert.ErrorIs(t, err, context.DeadlineExceeded, "h1 keeps renewing, so h2 waits in vain")

	released := make(chan error, 1)
	go func() {
		_, err := h2.AcquireWait(ctx, "job", lease.AcquireOptions{})
		released <- err
	}()
	var got error
	eventually(t, "Release ends a waiting AcquireWait", func() bool {
		assert.NoError(t, h2.Release("job")) // until the waiter registered
		select {
		case got = <-released:
			return true
		default:
			return false
		}
	})
	assert.ErrorIs(t, got, lease.ErrLeaseExpired)
}
