//go:debug randseednop=0

package gohost_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// brokenScenario is the lock service with a client that ignores its
// deadline, cut off while it holds the lock, and a nemesis that adds
// pauses and partitions on top.
func brokenScenario() scenarios.Scenario {
	c := defaultClient
	broken := c
	broken.broken, broken.hold = true, 15*time.Second
	clients := map[string]clientConfig{"c1": broken, "c2": withStart(c, 300*time.Millisecond)}
	return scenarios.Scenario{
		Name: "broken-client",
		Doc:  "a client that ignores its deadline is cut off while it holds the lock",
		Goroutines: func(uint64) gohost.Config {
			return lockConfig(20*time.Second, partitionSchedule, clients, "c1", "c2")
		},
		Nemesis: &faults.Nemesis{Targets: []string{"c2"}, Partitionable: []string{"c2", "store"},
			Kinds: []faults.Kind{faults.KindPause, faults.KindPartition}, FaultsPerMinute: 40, Phase: 11 * time.Second,
			PauseMax: time.Second, Boundaries: []time.Duration{2 * time.Second}},
		Premises: []scenarios.Premise{
			scenarios.FaultWhileHolding("c1 was cut off while it held the lock", 0, []string{"c1"}, history.FaultIsolate),
			scenarios.ChangedHands(),
		},
	}
}

func TestExecuteJudgesAndChecksPremises(t *testing.T) {
	out := executeOrFail(t, brokenScenario(), 8, scenarios.Options{T: t, Verify: true})
	require.NoError(t, out.Goroutine.Err())
	assert.Equal(t, history.Verified, out.Goroutine.Level.Determinism)
	assert.Equal(t, checker.Violated, out.Verdict("P1"))
	assert.Equal(t, checker.OK, out.Verdict("premise"))
	assert.Greater(t, len(out.Schedule.Events), len(partitionSchedule.Events), "the nemesis drew faults: %s", out.Schedule)
	assert.True(t, out.Failed())
	for _, p := range out.History.Premises {
		assert.True(t, p.Held, "%s: %s", p.Name, p.Detail)
	}
}

func TestPremiseNotHeldMakesTheRunUnknown(t *testing.T) {
	sc := brokenScenario()
	sc.Nemesis = nil
	sc.Premises = []scenarios.Premise{scenarios.FaultWhileHolding("c2 was paused while it held the lock", 0, []string{"c2"}, history.FaultPause), scenarios.FailpointHit("c1", "before-write")}
	out := executeOrFail(t, sc, 3, scenarios.Options{T: t})
	assert.Equal(t, checker.Unknown, out.Verdict("premise"))
	for _, p := range out.History.Premises {
		assert.False(t, p.Held, p.Name)
	}
}

func TestShrinkKeepsTheViolationWithFewerFaults(t *testing.T) {
	sc := brokenScenario()
	s, err := scenarios.ShrinkSeed(sc, 8, scenarios.Options{T: t}, 100)
	require.NoError(t, err)
	assert.Equal(t, "P1", s.Target.Property)
	assert.LessOrEqual(t, len(s.Schedule.Events), 3, "shrunk: %s", s.Schedule)
	assert.Less(t, len(s.Schedule.Events), len(s.Original.Events), "original: %s", s.Original)
	// The shrunk schedule replays to the same hash and still fails.
	again := executeOrFail(t, sc, 8, scenarios.Options{T: t, Schedule: &s.Schedule})
	assert.Equal(t, s.Hash, again.Goroutine.Hash)
	assert.Equal(t, checker.Violated, again.Verdict("P1"))

	sc.Goroutines = func(uint64) gohost.Config {
		return lockConfig(5*time.Second, faults.Schedule{}, map[string]clientConfig{"c1": defaultClient}, "c1")
	}
	sc.Nemesis = nil
	_, err = scenarios.ShrinkSeed(sc, 3, scenarios.Options{T: t}, 10)
	assert.ErrorIs(t, err, scenarios.ErrNothingToShrink)
}

// writer writes to the store under each token in order, one per 100 ms,
// believing it holds the lock under that token when it writes.
func writer(tokens ...uint64) func(context.Context, *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		c := n.NewStoreClient("store" + gohost.StorePort)
		defer c.Close()
		for i, tok := range tokens {
			time.Sleep(100 * time.Millisecond)
			n.Believe("lock", tok, time.Now().Add(50*time.Millisecond))
			err := c.Write(ctx, "lock", tok, "data", n.Name()+string(rune('a'+i)))
			if err != nil && !errors.Is(err, gohost.ErrFenced) {
				return err
			}
		}
		return nil
	}
}

func TestFencedStoreRefusesAndUnfencedAccepts(t *testing.T) {
	for _, tt := range []struct {
		name     string
		unfenced bool
		want     checker.Status
		accepted int
	}{
		{"fenced", false, checker.OK, 2},
		{"unfenced", true, checker.Violated, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := gohost.Config{Duration: time.Second, Verify: true,
				Nodes: []gohost.NodeSpec{{Name: "store", Run: gohost.FencedStore(gohost.StoreOptions{Unfenced: tt.unfenced})},
					{Name: "w", Run: writer(1, 2, 1)}},
				History: gohost.HistoryConfig{FencedStore: "store", Lease: history.Lease{TTL: time.Second}}}
			res := gohost.Run(t, cfg, 1)
			require.NoError(t, res.Err())
			assert.Equal(t, tt.accepted, accepted(res.History))
			assert.Equal(t, tt.want, results(res.History)["P2"].Status, results(res.History)["P2"].Summary)
		})
	}
}

func TestCallProcessedReturnMakeOperations(t *testing.T) {
	server := func(ctx context.Context, n *gohost.Node) error {
		l, err := n.Listen("tcp", ":1")
		if err != nil {
			return err
		}
		for {
			c, err := l.Accept()
			if err != nil {
				return nil
			}
			buf := make([]byte, 64)
			k, err := c.Read(buf)
			if err != nil {
				return nil
			}
			ref, err := gohost.ParseOpRef(string(buf[:k]))
			if err != nil {
				return err
			}
			n.Processed(ref, history.Payload{Kind: "get_reply", OK: true, Value: "v"})
			if ref.ID == 1 {
				_, _ = c.Write([]byte("ok"))
			} // the second request's reply is never sent
		}
	}
	client := func(ctx context.Context, n *gohost.Node) error {
		for range 2 {
			ref := n.Call("srv", history.Payload{Kind: "get", Key: "k"})
			c, err := n.Dial(ctx, "tcp", "srv:1")
			if err != nil {
				return err
			}
			_, _ = c.Write([]byte(ref.String()))
			_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			if _, err := c.Read(make([]byte, 2)); err == nil {
				n.Return(ref)
			}
			c.Close()
		}
		return nil
	}
	cfg := gohost.Config{Duration: time.Second, Verify: true,
		Nodes:   []gohost.NodeSpec{{Name: "srv", Run: server}, {Name: "cli", Run: client}},
		History: gohost.HistoryConfig{Grantor: "srv"}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	require.Equal(t, 2, res.History.NumOps())
	first, second := res.History.Op(0), res.History.Op(1)
	assert.Equal(t, []uint64{1, 2}, []uint64{first.ID, second.ID})
	for _, op := range res.History.AllOps() {
		assert.Equal(t, "srv", op.Server)
		assert.Equal(t, "cli", op.Client)
		assert.Equal(t, "get", op.Input.Kind)
		assert.Equal(t, "v", op.Output.Value)
		assert.Less(t, op.Call, op.Processed)
	}
	assert.Greater(t, first.Return, first.Processed)
	assert.Equal(t, history.Never, second.Return, "the second reply never arrived")
}

func TestParseOpRef(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want gohost.OpRef
		err  bool
	}{
		{in: "h1/2/3", want: gohost.OpRef{Client: "h1", Incarnation: 2, ID: 3}},
		{in: "a/b/2/3", want: gohost.OpRef{Client: "a/b", Incarnation: 2, ID: 3}},
		{in: "h1/2", err: true},
		{in: "/2/3", err: true},
		{in: "h1/x/3", err: true},
	} {
		got, err := gohost.ParseOpRef(tt.in)
		if tt.err {
			assert.Error(t, err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got)
		assert.Equal(t, tt.in, got.String())
	}
}

func TestActStretchesTheBeliefAndUnprocessedCallsAreNoOperations(t *testing.T) {
	client := func(ctx context.Context, n *gohost.Node) error {
		n.Believe("lock", 1, time.Now().Add(100*time.Millisecond))
		time.Sleep(300 * time.Millisecond)
		n.Act("lock", 1)                                      // after the deadline: the belief stretches to here
		n.Act("lock", 7)                                      // never believed: an inferred instant
		n.Call("srv", history.Payload{Kind: "get", Key: "k"}) // never processed: no operation
		return nil
	}
	cfg := gohost.Config{Duration: time.Second, Verify: true,
		Nodes:   []gohost.NodeSpec{{Name: "cli", Run: client}},
		History: gohost.HistoryConfig{Grantor: "srv"}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	assert.Zero(t, res.History.NumOps())
	require.Len(t, res.History.Beliefs, 2)
	stretched, inferred := res.History.Beliefs[0], res.History.Beliefs[1]
	assert.Equal(t, history.Time(300*time.Millisecond), stretched.End)
	assert.Equal(t, stretched.End, stretched.LastAct)
	assert.False(t, stretched.Inferred)
	assert.Equal(t, uint64(7), inferred.Token)
	assert.True(t, inferred.Inferred)
	assert.Equal(t, inferred.Start, inferred.End)
}

func TestDriftOfAClockTheCodeReadIsInTheHistory(t *testing.T) {
	sched := faults.Schedule{Version: faults.Version, HealAt: 800 * time.Millisecond,
		Events: []faults.Event{{At: 100 * time.Millisecond, Kind: faults.KindDrift, Node: "a", Drift: 0.03},
			{At: 100 * time.Millisecond, Kind: faults.KindDrift, Node: "b", Drift: -0.2}}}
	uses := func(ctx context.Context, n *gohost.Node) error { n.Clock().Sleep(500 * time.Millisecond); return nil }
	ignores := func(ctx context.Context, n *gohost.Node) error { time.Sleep(500 * time.Millisecond); return nil }
	cfg := gohost.Config{Duration: time.Second, Schedule: sched,
		Nodes: []gohost.NodeSpec{{Name: "a", Run: uses}, {Name: "b", Run: ignores}}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	// b's larger drift touched nothing its code read.
	assert.Equal(t, int64(30_000_000), res.History.MaxDriftPPB)
}

// A Write waiting on a store whose I/O is frozen ends when its context is
// cancelled, and when the client is closed.
func TestStoreWriteEndsOnCancelAndOnClose(t *testing.T) {
	pause := faults.Schedule{Version: faults.Version, HealAt: 2 * time.Second,
		Events: []faults.Event{{At: 50 * time.Millisecond, Kind: faults.KindPause, Node: "store", Duration: time.Second}}}
	var cancelled, closed time.Duration
	writer := func(ctx context.Context, n *gohost.Node) error {
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		c := n.NewStoreClient("store" + gohost.StorePort)
		wctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(100*time.Millisecond, cancel)
		if err := c.Write(wctx, "lock", 1, "k", "v"); err == nil {
			return errors.New("a write to a frozen store succeeded")
		}
		cancelled = time.Since(start)
		start = time.Now()
		done := make(chan error, 1)
		go func() { done <- c.Write(ctx, "lock", 1, "k", "v") }()
		time.Sleep(100 * time.Millisecond)
		c.Close()
		if err := <-done; err == nil {
			return errors.New("a write to a frozen store succeeded")
		}
		closed = time.Since(start)
		return nil
	}
	cfg := gohost.Config{Duration: 3 * time.Second, Verify: true, Schedule: pause,
		Nodes:   []gohost.NodeSpec{{Name: "store", Run: gohost.FencedStore(gohost.StoreOptions{})}, {Name: "w", Run: writer}},
		History: gohost.HistoryConfig{FencedStore: "store"}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	assert.Equal(t, 100*time.Millisecond, cancelled)
	assert.Equal(t, 100*time.Millisecond, closed)
}

// Closing a connection wakes every goroutine blocked on it, at once.
func TestCloseWakesEveryWaiter(t *testing.T) {
	var woke []string
	a := func(ctx context.Context, n *gohost.Node) error {
		c, err := n.Dial(ctx, "tcp", "b:1")
		if err != nil {
			return err
		}
		start := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		for _, op := range []string{"read 1", "read 2"} { // b never writes: both block
			wg.Go(func() {
				_, _ = c.Read(make([]byte, 1))
				mu.Lock()
				woke = append(woke, fmt.Sprintf("%s at %v", op, time.Since(start)))
				mu.Unlock()
			})
		}
		time.Sleep(100 * time.Millisecond)
		c.Close()
		wg.Wait()
		return nil
	}
	b := func(ctx context.Context, n *gohost.Node) error {
		l, err := n.Listen("tcp", ":1")
		if err != nil {
			return err
		}
		c, err := l.Accept()
		if err != nil {
			return nil
		}
		<-ctx.Done()
		c.Close()
		return nil
	}
	cfg := gohost.Config{Duration: 3 * time.Second,
		Nodes: []gohost.NodeSpec{{Name: "a", Run: a}, {Name: "b", Run: b}}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	assert.ElementsMatch(t, []string{"read 1 at 100ms", "read 2 at 100ms"}, woke)
}

// What a paused node writes is held at its boundary and leaves when the
// pause ends, even if the code closed the connection meanwhile: a pause
// cannot take back a write.
func TestPausedWritesLeaveAtTheResume(t *testing.T) {
	pause := faults.Schedule{Version: faults.Version, HealAt: 2 * time.Second,
		Events: []faults.Event{{At: 50 * time.Millisecond, Kind: faults.KindPause, Node: "a", Duration: 500 * time.Millisecond}}}
	var wrote time.Duration
	var got string
	var at time.Duration
	a := func(ctx context.Context, n *gohost.Node) error {
		c, err := n.Dial(ctx, "tcp", "b:1")
		if err != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond) // paused from 50 ms
		start := time.Now()
		if _, err := c.Write([]byte("stale")); err != nil {
			return err
		}
		wrote = time.Since(start)
		return c.Close()
	}
	recv := func(ctx context.Context, n *gohost.Node) error {
		start := time.Now()
		l, err := n.Listen("tcp", ":1")
		if err != nil {
			return err
		}
		c, err := l.Accept()
		if err != nil {
			return nil
		}
		buf, err := io.ReadAll(c)
		got, at = string(buf), time.Since(start)
		return err
	}
	cfg := gohost.Config{Duration: time.Second, Schedule: pause, Verify: true,
		Latency: sim.FixedDist(2 * time.Millisecond),
		Nodes:   []gohost.NodeSpec{{Name: "a", Run: a}, {Name: "b", Run: recv}}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	assert.Zero(t, wrote, "a write while paused returns at once (the send buffer)")
	assert.Equal(t, "stale", got, "the bytes and then the EOF arrive")
	assert.Equal(t, 552*time.Millisecond, at, "after the resume at 550 ms, plus the 2 ms latency")
}

// Config.SeedMathRand makes code that draws from math/rand's global source
// deterministic (this test binary sets randseednop=0 in main_test.go).
func TestSeedMathRand(t *testing.T) {
	var draws []int64
	cfg := gohost.Config{Duration: time.Second, SeedMathRand: true,
		Nodes: []gohost.NodeSpec{{Name: "a", Run: func(ctx context.Context, n *gohost.Node) error {
			draws = append(draws, mathrand.Int63()) //nolint:staticcheck
			return nil
		}}}}
	gohost.Run(t, cfg, 1)
	gohost.Run(t, cfg, 1)
	gohost.Run(t, cfg, 2)
	require.Len(t, draws, 3)
	assert.Equal(t, draws[0], draws[1], "the same seed, the same draw")
	assert.NotEqual(t, draws[0], draws[2], "another seed, another draw")
}

// A write to the fenced store is in flight from when the writer sent it:
// its operation's call is the send, its processing the store's decision,
// so a slow link shows (the behaviour hands-changed-mid-write reads it).
func TestFencedStoreWriteIsInFlightFromItsSend(t *testing.T) {
	for _, tc := range []struct {
		name    string
		latency time.Duration
	}{{"fast link", time.Millisecond}, {"slow link", 300 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			slow := faults.Schedule{Version: faults.Version, HealAt: 2 * time.Second, Events: []faults.Event{{At: 50 * time.Millisecond,
				Kind: faults.KindLink, From: "w", To: "store", Link: &sim.LinkConfig{Latency: sim.FixedDist(tc.latency)}}}}
			cfg := gohost.Config{Duration: 3 * time.Second, Verify: true, Latency: sim.FixedDist(time.Millisecond), Schedule: slow,
				Nodes: []gohost.NodeSpec{{Name: "store", Run: gohost.FencedStore(gohost.StoreOptions{})},
					{Name: "w", Run: writer(1, 2)}},
				History: gohost.HistoryConfig{FencedStore: "store", Lease: history.Lease{TTL: time.Second}}}
			res := gohost.Run(t, cfg, 1)
			require.NoError(t, res.Err())
			require.Equal(t, 2, res.History.NumOps())
			for _, op := range res.History.AllOps() {
				assert.Equal(t, history.Time(tc.latency), op.Processed-op.Call, "%+v", op)
				assert.Equal(t, op.Processed, op.Return, "the store's view: it returns as it decides")
			}
		})
	}
}
