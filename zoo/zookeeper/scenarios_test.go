package zookeeper

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/scenarios"
)

// execute runs a scenario for a seed, twice, and requires a clean,
// verified run with its premises held.
func execute(t *testing.T, sc scenarios.Scenario, seed uint64) *scenarios.Outcome {
	t.Helper()
	out := executeOrFail(t, sc, seed, scenarios.Options{T: t, Verify: true})
	require.NoError(t, out.Goroutine.Err(), "%s seed %d", sc.Name, seed)
	require.Equal(t, history.Verified, out.Goroutine.Level.Determinism, "%s seed %d: %s", sc.Name, seed, out.Goroutine.Level)
	for _, p := range out.History.Premises {
		require.True(t, p.Held, "%s seed %d: premise %s: %s", sc.Name, seed, p.Name, p.Detail)
	}
	return out
}

// The expected verdicts of the scripted stories, over three seeds each.
func TestStories(t *testing.T) {
	ok, bad, unknown, na := checker.OK, checker.Violated, checker.Unknown, checker.NotApplicable
	for _, tt := range []struct {
		sc             scenarios.Scenario
		p1, p2, p3, p4 checker.Status
		why            string
	}{
		{SessionCutOff(OnExpired, 6*time.Second), bad, ok, ok, ok, "#20: h1 learns of the expiry only after the heal"},
		{SessionCutOff(OnDisconnected, 6*time.Second), ok, ok, ok, ok, "recvTimeout (2/3 of the session) < the server's expiry"},
		{SessionCutOff(OnExpired, 4*time.Second), bad, ok, ok, ok, "#20 at ZooKeeper's smallest session"},
		{SessionCutOff(OnDisconnected, 10*time.Second), ok, ok, ok, ok, "a longer session, the same margin"},
		// Nobody ever holds the lock: with no belief P1 has nothing to judge
		// (unknown), and with no grant and no accepted write P2 is not
		// applicable; no data is never ok. P3 judges the server's requests
		// (the orphan is a legal node of a live session).
		{OrphanNode(false), unknown, na, ok, bad, "#229: the orphan lock node blocks every contender"},
		{OrphanNode(true), ok, ok, ok, ok, "PR #237's cleanup, done by the holder: the lock is held again"},
		{ServerRestart(), ok, ok, ok, ok, "durable tree and sessions"},
		{GCPause(NoToken), bad, bad, ok, ok, "Kleppmann: token 0 for both"},
		{GCPause(SeqToken), bad, ok, ok, ok, "the sequence number fences the stale write"},
		{GCPause(CzxidToken), bad, ok, ok, ok, "the czxid fences the stale write"},
	} {
		t.Run(tt.sc.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				out := execute(t, tt.sc, seed)
				for _, p := range []struct {
					name string
					want checker.Status
				}{{"P1", tt.p1}, {"P2", tt.p2}, {"P3", tt.p3}, {"P4", tt.p4}} {
					assert.Equal(t, p.want, out.Verdict(p.name), "seed %d %s (%s)", seed, p.name, tt.why)
				}
			}
		})
	}
}

// Kleppmann's pause: h1's write after the pause reaches the store, and the
// fenced store refuses it under either token.
func TestGCPauseStaleWrite(t *testing.T) {
	for _, tok := range []Token{NoToken, SeqToken, CzxidToken} {
		out := execute(t, GCPause(tok), 1)
		after := history.Time(15 * time.Second) // h2 holds from about 10 s; h1 wakes at about 19 s
		var stale, refused bool
		for _, op := range out.Goroutine.History.AllOps() {
			if op.Server == StoreNode && op.Client == "h1" && op.Call > after {
				stale = true
				refused = refused || op.Output.Err != ""
			}
		}
		assert.True(t, stale, "%s: h1's write after the pause reached the store", tok)
		assert.Equal(t, tok != NoToken, refused, "%s: refused exactly when fenced", tok)
	}
}

// The orphan: after the lost reply, nobody ever holds the lock, the P4
// verdict names the lock, and at the end of the run the lowest lock node
// is the one h1's first Lock created (the first sequence number), still
// there on a live session that queued a second node behind it (h1's next
// Lock), with every contender's node queued behind it too.
func TestOrphanNodeLiveness(t *testing.T) {
	sc := OrphanNode(false)
	out := execute(t, sc, 1)
	assert.Empty(t, out.Goroutine.History.Beliefs, "nobody ever held the lock")
	var p4 string // P4's violation, which names the node in front
	for _, c := range out.Checks {
		if c.Property == "P4" {
			assert.Contains(t, c.Summary, LockPath)
			assert.NotEmpty(t, c.Bound, "P4 states its bound")
			if assert.Len(t, c.Violations, 1) {
				p4 = c.Violations[0].Detail
			}
		}
	}
	cfg := sc.Goroutines(1)
	var final *durable
	serve := cfg.Nodes[0].Run
	require.Equal(t, ZooKeeperNode, cfg.Nodes[0].Name)
	cfg.Nodes[0].Run = func(ctx context.Context, n *gohost.Node) error {
		err := serve(ctx, n)
		if b, ok := n.Storage().Get(stateKey); ok {
			final, _ = decodeDurable(b)
		}
		return err
	}
	// The holders stop 3 s before the end by cutting their connections:
	// their sessions are still open when the run ends, 3 s later.
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	require.NotNil(t, final)
	children := final.Nodes[LockPath].Children
	require.GreaterOrEqual(t, len(children), 3, "the orphan, h2's node, h1's next node: %v", children)
	orphan, seq := lowest(children)
	assert.Equal(t, int64(0), seq, "the first node created under the lock: %s", orphan)
	owner := final.Nodes[LockPath+"/"+orphan].EphemeralOwner
	assert.Contains(t, final.Sessions, owner, "the orphan's session is still open")
	assert.Contains(t, p4, fmt.Sprintf("the server still had %s/%s first in line, an ephemeral of session %#x", LockPath, orphan, owner),
		"P4 names the orphan the server's tree holds")
	var mine int
	for _, c := range children {
		if final.Nodes[LockPath+"/"+c].EphemeralOwner == owner {
			mine++
		}
	}
	assert.GreaterOrEqual(t, mine, 2, "h1 queued a second node behind its own orphan")
	t.Logf("orphan %s/%s of session %#x; children %v", LockPath, orphan, owner, children)
}

// The herd under its nemesis: P2 always holds with the czxid token; each
// configuration runs clean and verified.
func TestHerd(t *testing.T) {
	var faulted int
	for seed := uint64(1); seed <= 2; seed++ {
		for _, l := range []LostOn{OnExpired, OnDisconnected} {
			out := executeOrFail(t, Herd(l, false), seed, scenarios.Options{T: t, Verify: true})
			require.NoError(t, out.Goroutine.Err(), "seed %d", seed)
			assert.Equal(t, checker.OK, out.Verdict("P2"), "seed %d %s", seed, l)
			if len(out.Schedule.Events) > 0 {
				faulted++
			}
		}
	}
	assert.Positive(t, faulted, "the nemesis drew faults")
}

// A failing seed shrinks and replays to the same hash.
func TestShrinkAndReplay(t *testing.T) {
	sc := SessionCutOff(OnExpired, 4*time.Second)
	s, err := scenarios.ShrinkSeed(sc, 2, scenarios.Options{T: t}, 20)
	require.NoError(t, err)
	assert.Equal(t, "P1", s.Target.Property)
	assert.Len(t, s.Schedule.Events, 1, "the cut itself: %s", s.Schedule)
	again := executeOrFail(t, sc, 2, scenarios.Options{T: t, Schedule: &s.Schedule, Verify: true})
	assert.Equal(t, s.Hash, again.Goroutine.Hash)
	assert.Equal(t, checker.Violated, again.Verdict("P1"))
}

// P3 judges the server's own requests under the zookeeper-session
// specification, and it bites: the same history with one more exists,
// processed after the run, that still finds h1's first lock node (whose
// session expired while h1 was cut off) is a violation.
func TestP3JudgesTheServer(t *testing.T) {
	out := execute(t, SessionCutOff(OnExpired, 6*time.Second), 1)
	h := out.Goroutine.History
	var server int
	var lock history.Operation
	var last history.Operation
	for _, op := range h.AllOps() {
		if op.Server != ZooKeeperNode {
			continue
		}
		server++
		if lock.Input.Kind == "" && op.Input.Kind == model.OpZKCreate && op.Input.Value == model.ZKEphemeralSequential &&
			op.Output.Err == "" {
			lock = op
		}
		if op.Processed > last.Processed {
			last = op
		}
	}
	require.Positive(t, server, "the server's requests are operations")
	require.NotEmpty(t, lock.Output.Key, "a lock node was created")
	p3 := checker.Linearizability(h, checker.Options{})
	assert.Equal(t, checker.OK, p3.Status, p3.Summary)
	assert.Contains(t, p3.Summary, Spec)

	stale := last
	stale.ID, stale.Client = last.ID+1000, ZooKeeperNode
	stale.Call, stale.Processed, stale.Return = last.Return+1, last.Return+1, last.Return+2
	stale.Input = history.Payload{Kind: model.OpZKExists, Lease: last.Input.Lease, Key: lock.Output.Key}
	stale.Output = history.Payload{Kind: model.OpZKExists + "_reply", OK: true, Lease: lock.Input.Lease,
		Clock: last.Output.Clock + time.Millisecond}
	h.AppendOp(stale)
	p3 = checker.Linearizability(h, checker.Options{})
	assert.Equal(t, checker.Violated, p3.Status, p3.Summary)
	t.Log(p3.Summary)
}
