package gohost_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// on adapts a lock-service function to a node function.
func on(f func(context.Context, env) error) func(context.Context, *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error { return f(ctx, n) }
}

// lockConfig is the lock service with the given clients.
func lockConfig(d time.Duration, s faults.Schedule, clients map[string]clientConfig, names ...string) gohost.Config {
	cfg := gohost.Config{Duration: d, Schedule: s,
		Nodes: []gohost.NodeSpec{{Name: "lock", Run: on(lockServer)}, {Name: "store", Run: on(storeServer)}},
		History: gohost.HistoryConfig{Grantor: "lock", FencedStore: "store",
			Lease: history.Lease{TTL: defaultClient.ttl}}}
	for _, name := range names {
		cfg.Nodes = append(cfg.Nodes, gohost.NodeSpec{Name: name, Run: on(lockClient(clients[name]))})
	}
	return cfg
}

// results indexes checker results by property.
func results(h *history.History) map[string]checker.Result {
	out := map[string]checker.Result{}
	for _, r := range checker.Check(h, checker.Options{}) {
		out[r.Property] = r
	}
	return out
}

func accepted(h *history.History) (n int) {
	for _, op := range h.AllOps() {
		if op.Output.OK {
			n++
		}
	}
	return n
}

func holders(h *history.History) map[string]int {
	out := map[string]int{}
	for _, b := range h.Beliefs {
		out[b.Holder]++
	}
	return out
}

func TestLockServiceNoFaults(t *testing.T) {
	c := defaultClient
	clients := map[string]clientConfig{"c1": c, "c2": withStart(c, 100*time.Millisecond), "c3": withStart(c, 200*time.Millisecond)}
	res := gohost.Run(t, lockConfig(30*time.Second, faults.Schedule{}, clients, "c1", "c2", "c3"), 1)
	require.NoError(t, res.Err())
	h := res.History
	rs := results(h)
	assert.Equal(t, checker.OK, rs["P1"].Status, rs["P1"].Summary)
	assert.Equal(t, checker.OK, rs["P2"].Status, rs["P2"].Summary)
	assert.Len(t, holders(h), 3, "every client held the lock at some point")
	assert.GreaterOrEqual(t, len(h.Beliefs), 6)
	assert.Greater(t, accepted(h), 50)
	for _, op := range h.AllOps() {
		assert.True(t, op.Output.OK, "a correct client's write is never fenced without faults: %+v", op)
	}
}

func withStart(c clientConfig, d time.Duration) clientConfig { c.start = d; return c }

// partitionSchedule cuts c1 off from everyone from 1s to 11s: longer than
// the TTL of 2s.
var partitionSchedule = faults.Schedule{Version: faults.Version, HealAt: 11 * time.Second,
	Events: []faults.Event{{At: time.Second, Kind: faults.KindIsolate, Node: "c1"}}}

func TestPartitionedHolderStopsBelieving(t *testing.T) {
	c := defaultClient
	clients := map[string]clientConfig{"c1": c, "c2": withStart(c, 300*time.Millisecond)}
	res := gohost.Run(t, lockConfig(20*time.Second, partitionSchedule, clients, "c1", "c2"), 7)
	require.NoError(t, res.Err())
	h := res.History
	// The premise: c1 held the lock when the partition began.
	var cut *history.BeliefInterval
	for i, b := range h.Beliefs {
		if b.Holder == "c1" && b.Start < history.Time(time.Second) && b.End > history.Time(time.Second) {
			cut = &h.Beliefs[i]
		}
	}
	require.NotNil(t, cut, "c1 must hold the lock when it is cut off: %v", h.Beliefs)
	assert.LessOrEqual(t, cut.End, history.Time(time.Second+c.ttl), "c1 stops believing within a TTL of the cut")
	// c2 took over during the partition.
	var took bool
	for _, b := range h.Beliefs {
		took = took || b.Holder == "c2" && b.Start > cut.End && b.Start < history.Time(11*time.Second)
	}
	assert.True(t, took, "c2 holds the lock while c1 is cut off")
	rs := results(h)
	assert.Equal(t, checker.OK, rs["P1"].Status, rs["P1"].Summary)
	assert.Equal(t, checker.OK, rs["P2"].Status, rs["P2"].Summary)
	assert.Contains(t, kinds(res.Events), "stall deliver", "the cut held bytes back")
}

func kinds(events []gohost.Event) map[string]bool {
	out := map[string]bool{}
	for _, e := range events {
		out[e.Kind] = true
	}
	return out
}

func TestBrokenClientViolatesExclusivity(t *testing.T) {
	c := defaultClient
	broken := c
	broken.broken, broken.hold = true, 15*time.Second
	clients := map[string]clientConfig{"c1": broken, "c2": withStart(c, 300*time.Millisecond)}
	res := gohost.Run(t, lockConfig(20*time.Second, partitionSchedule, clients, "c1", "c2"), 7)
	require.NoError(t, res.Err())
	rs := results(res.History)
	require.Equal(t, checker.Violated, rs["P1"].Status, rs["P1"].Summary)
	t.Log(rs["P1"].Violations[0].Detail)
	// The fenced store refuses c1's stale writes once c2 wrote: P2 holds.
	assert.Equal(t, checker.OK, rs["P2"].Status, rs["P2"].Summary)
	var fenced int
	for _, op := range res.History.AllOps() {
		if op.Client == "c1" && op.Output.Err == "fenced" {
			fenced++
		}
	}
	assert.Positive(t, fenced, "c1's writes after the heal are fenced")
}
