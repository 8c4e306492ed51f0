package gohost_test

import (
	"context"
	"crypto/rand"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

func TestSameSeedSameHash(t *testing.T) {
	c := defaultClient
	clients := map[string]clientConfig{"c1": c, "c2": withStart(c, 300*time.Millisecond), "c3": withStart(c, 50*time.Millisecond)}
	cfg := lockConfig(20*time.Second, partitionSchedule, clients, "c1", "c2", "c3")
	cfg.Verify = true
	cfg.Latency = gohostPareto
	for _, seed := range []uint64{1, 2, 3} {
		res := gohost.Run(t, cfg, seed)
		require.NoError(t, res.Err())
		assert.Equal(t, history.Verified, res.Level.Determinism, "seed %d: %s", seed, res.Level)
		assert.Equal(t, "verified", res.Level.String())
		assert.Equal(t, 2, res.Level.Runs)
		assert.Greater(t, len(res.Events), 300)
	}
	a, b := gohost.Run(t, cfg, 1), gohost.Run(t, cfg, 2)
	assert.NotEqual(t, a.Hash, b.Hash, "another seed draws other latencies")
	// The same on any GOMAXPROCS and with -race (checked with -cpu 1,2,4):
	// a change to the host's simulated path shows here.
	assert.Equal(t, uint64(0x87a5cac8ecd5eb64), a.Hash, "golden hash of seed 1 (%d events)", len(a.Events))
}

// A node that reads the real wall clock (here through a raw syscall, since
// time.Now inside the bubble is the bubble's clock) and lets it shape what
// it sends makes the two runs of a seed differ: Verify reports where.
func TestRealClockDiverges(t *testing.T) {
	cfg := gohost.Config{Duration: 2 * time.Second, Verify: true, Nodes: []gohost.NodeSpec{
		{Name: "srv", Run: func(ctx context.Context, n *gohost.Node) error {
			return serve(ctx, n, "srv:9", func(string) string { return "ok" })
		}},
		{Name: "cli", Run: func(ctx context.Context, n *gohost.Node) error {
			c, err := n.Dial(ctx, "tcp", "srv:9")
			if err != nil {
				return err
			}
			defer c.Close()
			for ctx.Err() == nil {
				var tv syscall.Timeval
				if err := syscall.Gettimeofday(&tv); err != nil {
					return err
				}
				if _, err := c.Write([]byte(time.Unix(tv.Unix()).Format(time.RFC3339Nano) + "\n")); err != nil {
					return nil
				}
				sleep(ctx, 100*time.Millisecond)
			}
			return nil
		}},
	}}
	res := gohost.Run(t, cfg, 1)
	require.True(t, res.Level.Diverged(), "reading the real clock must show: %s", res.Level)
	assert.Contains(t, res.Level.String(), "diverged at event")
	assert.Contains(t, res.Level.First, "deliver cli -> srv")
	assert.Contains(t, res.Level.Likely, "the same step produced a different value", "the diagnosis")
	require.Error(t, res.Err())
	assert.Contains(t, res.Err().Error(), "determinism: diverged at event")
}

// A goroutine doing real I/O inside the bubble keeps the bubble from
// settling and the fake clock stands still; the watchdog names the node.
func TestRealIOIsReported(t *testing.T) {
	real, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer real.Close()
	go func() { // a real server that answers only after a while (real time)
		c, err := real.Accept()
		if err != nil {
			return
		}
		time.Sleep(600 * time.Millisecond)
		c.Close()
	}()
	cfg := gohost.Config{Duration: time.Second, Watchdog: 200 * time.Millisecond, Nodes: []gohost.NodeSpec{
		{Name: "leaky", Run: func(ctx context.Context, n *gohost.Node) error {
			c, err := net.Dial("tcp", real.Addr().String())
			if err != nil {
				return err
			}
			defer c.Close()
			_, _ = c.Read(make([]byte, 1)) // real network: not durably blocking
			return nil
		}},
	}}
	res := gohost.Run(t, cfg, 1)
	require.NotEmpty(t, res.Problems)
	assert.Contains(t, res.Problems[0], "real I/O inside the bubble")
	assert.Contains(t, res.Problems[0], "node leaky (incarnation 1)")
}

// A goroutine waiting for a mutex whose holder is in real I/O keeps the
// bubble from settling: the watchdog names the waiter and the holder's I/O.
func TestMutexStallIsReported(t *testing.T) {
	real, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer real.Close()
	go func() { // a real server that answers only after a while (real time)
		c, err := real.Accept()
		if err != nil {
			return
		}
		time.Sleep(600 * time.Millisecond)
		c.Close()
	}()
	cfg := gohost.Config{Duration: time.Second, Watchdog: 200 * time.Millisecond, Nodes: []gohost.NodeSpec{
		{Name: "locker", Run: func(ctx context.Context, n *gohost.Node) error {
			var mu sync.Mutex
			reads := 0 // what the mutex guards
			held := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				mu.Lock()
				defer mu.Unlock()
				close(held)
				c, err := net.Dial("tcp", real.Addr().String())
				if err != nil {
					return
				}
				defer c.Close()
				_, _ = c.Read(make([]byte, 1)) // real network, under the mutex
				reads++
			}()
			<-held
			mu.Lock() // not durably blocking: the bubble cannot settle
			reads++
			mu.Unlock()
			<-done
			return nil
		}},
	}}
	res := gohost.Run(t, cfg, 1)
	require.NotEmpty(t, res.Problems)
	assert.Contains(t, res.Problems[0], "blocked on a mutex")
	assert.Contains(t, res.Problems[0], "node locker (incarnation 1): 1× sync.(*Mutex).Lock")
	assert.Contains(t, res.Problems[0], "in real I/O, perhaps holding it: node locker (incarnation 1)")
}

// A node's goroutine that ignores its context outlives the crash: the host
// reports it with the node's name, at the crash and at the end of the run.
func TestLeakPastCrash(t *testing.T) {
	cfg := gohost.Config{Duration: 5 * time.Second,
		Schedule: faults.Schedule{Version: faults.Version, HealAt: 4 * time.Second, Events: []faults.Event{
			{At: 2 * time.Second, Kind: faults.KindCrash, Node: "sloppy"},
			{At: 3 * time.Second, Kind: faults.KindRestart, Node: "sloppy"}}},
		Nodes: []gohost.NodeSpec{
			{Name: "tidy", Run: func(ctx context.Context, n *gohost.Node) error { <-ctx.Done(); return nil }},
			{Name: "sloppy", Run: func(ctx context.Context, n *gohost.Node) error {
				if n.Incarnation() == 1 {
					go func() { time.Sleep(time.Hour) }() // ignores ctx
				}
				<-ctx.Done()
				return ctx.Err()
			}},
		}}
	res := gohost.Run(t, cfg, 1)
	require.Len(t, res.Leaks, 2, "%v", res.Leaks)
	l := res.Leaks[0]
	assert.Equal(t, "sloppy", l.Node)
	assert.Equal(t, uint64(1), l.Incarnation)
	assert.Equal(t, "crash", l.After)
	assert.Equal(t, 2*time.Second, l.At)
	assert.Equal(t, 1, l.Goroutines)
	assert.Contains(t, l.String(), "node sloppy (incarnation 1)")
	assert.Contains(t, l.String(), "time.Sleep")
	assert.Equal(t, "end of run", res.Leaks[1].After, "still there when the run ends")
	assert.Contains(t, strings.Join(res.Problems, "\n"), "deadlock: main bubble goroutine has exited but blocked goroutines remain")
	assert.Contains(t, res.Err().Error(), "goroutine leak")
}

// Goroutines left when the run ends, one waiting on a channel, one on a
// timer, are named once the bubble's main has returned (synctest's
// deadlock): with the life, the end's instant and a leak event closing
// the trace, the same in both runs of a verified seed.
func TestLeakAtEndOfRun(t *testing.T) {
	cfg := gohost.Config{Duration: 3 * time.Second, Verify: true,
		Nodes: []gohost.NodeSpec{
			{Name: "tidy", Run: func(ctx context.Context, n *gohost.Node) error { <-ctx.Done(); return nil }},
			{Name: "sloppy", Run: func(ctx context.Context, n *gohost.Node) error {
				go func() { <-make(chan struct{}) }()      // ignores ctx
				go func() { time.Sleep(24 * time.Hour) }() // so does this one
				<-ctx.Done()
				return nil
			}},
		}}
	res := gohost.Run(t, cfg, 1)
	require.Len(t, res.Leaks, 1, "%v", res.Leaks)
	l := res.Leaks[0]
	assert.Equal(t, "sloppy", l.Node)
	assert.Equal(t, "end of run", l.After)
	assert.Equal(t, 3*time.Second, l.At, "when the run ended, not when the host looked")
	assert.Equal(t, 2, l.Goroutines)
	assert.Contains(t, strings.Join(l.Where, "; "), "time.Sleep")
	last := res.Events[len(res.Events)-1]
	assert.Equal(t, "leak", last.Kind)
	assert.Equal(t, 3*time.Second, last.At)
	assert.Equal(t, len(res.Events)-1, last.Seq)
	assert.Equal(t, history.Verified, res.Level.Determinism, "both runs' traces end with the leak: %v", res.Level)
	assert.Contains(t, strings.Join(res.Problems, "\n"), "deadlock: main bubble goroutine has exited but blocked goroutines remain")
}

// Crash and restart: the lock server crashes and restarts from its
// durable token counter, so tokens keep increasing; clients notice the
// reset connections and carry on.
func TestCrashRestartKeepsStorage(t *testing.T) {
	c := defaultClient
	clients := map[string]clientConfig{"c1": c, "c2": withStart(c, 300*time.Millisecond)}
	s := faults.Schedule{Version: faults.Version, HealAt: 12 * time.Second, Events: []faults.Event{
		{At: 4 * time.Second, Kind: faults.KindCrash, Node: "lock"},
		{At: 5 * time.Second, Kind: faults.KindRestart, Node: "lock"}}}
	res := gohost.Run(t, lockConfig(20*time.Second, s, clients, "c1", "c2"), 3)
	require.NoError(t, res.Err())
	ks := kinds(res.Events)
	assert.True(t, ks["crash"] && ks["reset"], "the crash resets connections")
	var restarted bool
	for _, e := range res.Events {
		restarted = restarted || e.Kind == "start" && e.Node == "lock" && e.Detail == "incarnation 2"
	}
	assert.True(t, restarted)
	var before, after uint64
	for _, b := range res.History.Beliefs {
		if b.Start < history.Time(4*time.Second) {
			before = max(before, b.Token)
		} else if b.Start > history.Time(5*time.Second) {
			after = max(after, b.Token)
			assert.Greater(t, b.Token, before, "a token issued after the restart exceeds those before")
		}
	}
	assert.Positive(t, before)
	assert.Positive(t, after)
	rs := results(res.History)
	assert.Equal(t, checker.OK, rs["P2"].Status, rs["P2"].Summary)
}

// A pause freezes the node's I/O both ways: nothing reaches it and it
// sends nothing until it resumes, late.
func TestPauseFreezesIO(t *testing.T) {
	var got []time.Duration
	cfg := gohost.Config{Duration: 3 * time.Second, Latency: fixed(time.Millisecond),
		Schedule: faults.Schedule{Version: faults.Version, HealAt: 2 * time.Second, Events: []faults.Event{
			{At: 500 * time.Millisecond, Kind: faults.KindPause, Node: "srv", Duration: time.Second}}},
		Nodes: []gohost.NodeSpec{
			{Name: "srv", Run: func(ctx context.Context, n *gohost.Node) error {
				return serve(ctx, n, "srv:9", func(string) string { return "pong" })
			}},
			{Name: "cli", Run: func(ctx context.Context, n *gohost.Node) error {
				start := time.Now()
				c, err := n.Dial(ctx, "tcp", "srv:9")
				if err != nil {
					return err
				}
				defer c.Close()
				buf := make([]byte, 5)
				for ctx.Err() == nil {
					if _, err := c.Write([]byte("ping\n")); err != nil {
						return nil
					}
					if _, err := c.Read(buf); err != nil {
						return nil
					}
					got = append(got, time.Since(start))
					sleep(ctx, 200*time.Millisecond)
				}
				return nil
			}},
		}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	var gap time.Duration
	for i := 1; i < len(got); i++ {
		gap = max(gap, got[i]-got[i-1])
	}
	assert.GreaterOrEqual(t, gap, 900*time.Millisecond, "no reply while the server is paused: %v", got)
	assert.Contains(t, kinds(res.Events), "stall deliver")
	assert.Contains(t, kinds(res.Events), "resume")
}

// A failpoint armed with a pause lands between the client's check of its
// deadline and its write: the stale write reaches the store after another
// holder's, and the fenced store refuses it (the Kleppmann story).
func TestFailpointPauseBetweenCheckAndWrite(t *testing.T) {
	c := defaultClient
	c.hold = 10 * time.Second
	clients := map[string]clientConfig{"c1": c, "c2": withStart(c, 300*time.Millisecond)}
	s := faults.Schedule{Version: faults.Version, HealAt: 12 * time.Second, Events: []faults.Event{
		{At: time.Second, Kind: faults.KindFailpoint, Node: "c1", Failpoint: "before-write",
			Action: faults.ActionPause, Duration: 5 * time.Second}}}
	res := gohost.Run(t, lockConfig(15*time.Second, s, clients, "c1", "c2"), 5)
	require.NoError(t, res.Err())
	assert.Contains(t, kinds(res.Events), "failpoint-hit")
	var fenced bool
	for _, op := range res.History.AllOps() {
		fenced = fenced || op.Client == "c1" && op.Output.Err == "fenced"
	}
	assert.True(t, fenced, "c1's write after the pause is fenced")
	rs := results(res.History)
	assert.Equal(t, checker.OK, rs["P1"].Status, "c1 stopped believing at its deadline, paused or not: %s", rs["P1"].Summary)
	assert.Equal(t, checker.OK, rs["P2"].Status, rs["P2"].Summary)
}

// crypto/rand is process-global: a node that sends its bytes diverges
// between the two runs of a seed, unless the run seeds it.
func TestCryptoRand(t *testing.T) {
	cfg := gohost.Config{Duration: time.Second, Verify: true, Nodes: []gohost.NodeSpec{
		{Name: "srv", Run: func(ctx context.Context, n *gohost.Node) error {
			return serve(ctx, n, "srv:9", func(string) string { return "ok" })
		}},
		{Name: "cli", Run: func(ctx context.Context, n *gohost.Node) error {
			c, err := n.Dial(ctx, "tcp", "srv:9")
			if err != nil {
				return err
			}
			defer c.Close()
			_, err = c.Write([]byte(rand.Text() + "\n"))
			<-ctx.Done()
			return err
		}},
	}}
	res := gohost.Run(t, cfg, 1)
	assert.True(t, res.Level.Diverged(), "unseeded crypto/rand shows as a divergence: %s", res.Level)
	cfg.SeedCryptoRand = true
	res = gohost.Run(t, cfg, 1)
	assert.Equal(t, "verified", res.Level.String())
	require.NoError(t, res.Err())
}
