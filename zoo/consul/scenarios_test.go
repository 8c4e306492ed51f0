package consul

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/scenarios"
)

// No test here is parallel: gohost runs in synctest bubbles the host owns,
// and the default tests stay short (seeds 1–2; TestMeasure runs 1–200).

// execute runs a scenario for a seed, twice, and requires a clean,
// verified run with its premises held and P4 ok (every story's holders
// keep contending, and the heal ends every fault).
func execute(t *testing.T, sc scenarios.Scenario, seed uint64) *scenarios.Outcome {
	t.Helper()
	out := executeOrFail(t, sc, seed, scenarios.Options{T: t, Verify: true})
	require.NoError(t, out.Goroutine.Err(), "%s seed %d", sc.Name, seed)
	require.Equal(t, history.Verified, out.Goroutine.Level.Determinism, "%s seed %d: %s", sc.Name, seed, out.Goroutine.Level)
	for _, p := range out.History.Premises {
		require.True(t, p.Held, "%s seed %d: premise %s: %s", sc.Name, seed, p.Name, p.Detail)
	}
	assert.Equal(t, checker.OK, out.Verdict("P4"), "%s seed %d", sc.Name, seed)
	return out
}

// verdicts are the P1 and P2 verdicts a scenario must give.
type verdicts struct{ p1, p2 checker.Status }

func TestStoriesVerdicts(t *testing.T) {
	v, ok := checker.Violated, checker.OK
	want := map[string]verdicts{
		// hashicorp/consul#18271: h1 believes until the heal, h2 locked long before.
		"consul-cutoff/no-token":             {v, v},
		"consul-cutoff/modify-index":         {v, ok},
		"consul-cutoff/lock-index":           {v, ok},
		"consul-cutoff/modify-index-ttl-10s": {v, ok},
		"consul-cutoff/modify-index-ttl-30s": {v, ok},
		"consul-cutoff/semaphore-no-token":   {v, v},
		// the holder-side fix: h1's belief ends a TTL after its last renewal.
		"consul-cutoff/modify-index-budget": {ok, ok},
		// the lock-delay outlasts the cut: h1 learns before h2 can lock.
		"consul-lock-delay/honoured": {ok, ok},
		// variants and a user's 1 ms lock-delay: h2 locks while h1 believes.
		"consul-lock-delay/ignored":            {v, ok},
		"consul-lock-delay/1ms":                {v, ok},
		"consul-lock-delay/early-invalidation": {v, ok},
		// a failover renews every session: no overlap either way.
		"consul-server-restart/monitor-retries-0": {ok, ok},
		"consul-server-restart/monitor-retries-3": {ok, ok},
		// Kleppmann: the stale write is refused under a token.
		"consul-gc-pause/no-token":       {v, v},
		"consul-gc-pause/modify-index":   {v, ok},
		"consul-gc-pause/lock-index":     {v, ok},
		"consul-herd/lock-modify-index":  {ok, ok},
		"consul-herd/semaphore-no-token": {ok, v},
	}
	var scs []scenarios.Scenario
	for _, sc := range Scenarios() {
		if !strings.HasPrefix(sc.Name, "consul-contention/") { // its nemesis draws: TestContention
			scs = append(scs, sc)
		}
	}
	require.Len(t, scs, len(want), "every scenario has its expected verdicts here")
	for _, sc := range scs {
		w, found := want[sc.Name]
		require.True(t, found, sc.Name)
		t.Run(sc.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 2; seed++ {
				out := execute(t, sc, seed)
				assert.Equal(t, w.p1, out.Verdict("P1"), "seed %d", seed)
				assert.Equal(t, w.p2, out.Verdict("P2"), "seed %d", seed)
			}
		})
	}
}

// With no monitor retries the failover ends h1's tenure (its monitor's
// query fails once); with three it rides the failover out.
func TestMonitorRetriesRideOutTheFailover(t *testing.T) {
	lostAtCrash := func(retries int) bool {
		out := execute(t, ServerRestart(retries), 1)
		for _, b := range out.History.Beliefs {
			if b.Holder == "h1" && b.Reason == history.EndLost {
				return true
			}
		}
		return false
	}
	assert.True(t, lostAtCrash(0), "MonitorRetries 0: the lost channel closes at the crash")
	assert.False(t, lostAtCrash(3), "MonitorRetries 3: h1 keeps the lock through the failover")
}

// A failing seed shrinks to at most its faults and replays to the same
// hash, verified.
func TestShrinkAndReplay(t *testing.T) {
	sc := LockDelayStory(DelayIgnored)
	s, err := scenarios.ShrinkSeed(sc, 1, scenarios.Options{T: t}, 40)
	require.NoError(t, err)
	assert.Equal(t, "P1", s.Target.Property)
	assert.LessOrEqual(t, len(s.Schedule.Events), 1, "shrunk: %s", s.Schedule)
	again := executeOrFail(t, sc, 1, scenarios.Options{T: t, Schedule: &s.Schedule, Verify: true})
	assert.Equal(t, s.Hash, again.Goroutine.Hash)
	assert.Equal(t, checker.Violated, again.Verdict("P1"))
	assert.Equal(t, history.Verified, again.Goroutine.Level.Determinism)
}

// Under the nemesis the ModifyIndex token and the fenced store keep P2;
// without a token every hand-over breaks it. Seed 1 cuts a holder off
// past 2×TTL and the lock-delay while another locks (P1, #18271).
func TestContention(t *testing.T) {
	var faulted int
	for seed := uint64(1); seed <= 2; seed++ {
		out := execute(t, Contention(ModifyIndex), seed)
		assert.Equal(t, checker.OK, out.Verdict("P2"), "seed %d", seed)
		if len(out.Schedule.Events) > 0 {
			faulted++
		}
		if seed == 1 {
			assert.Equal(t, checker.Violated, out.Verdict("P1"), "seed 1")
		}
		nt := execute(t, Contention(NoToken), seed)
		assert.Equal(t, checker.Violated, nt.Verdict("P2"), "seed %d: without a token every holder writes under 0", seed)
	}
	assert.Equal(t, 2, faulted, "the nemesis drew faults")
}

// P3 judges the server's own requests under the consul-session
// specification: the lock-delay story is linearizable as Consul runs it,
// the two server variants are caught (an acquire inside the lock-delay,
// an invalidation before the TTL), and the honoured run with its first
// refused acquire turned into a success (inside the lock-delay) is a
// violation.
func TestP3JudgesTheServer(t *testing.T) {
	out := execute(t, LockDelayStory(DelayHonoured), 1)
	h := out.Goroutine.History
	p3 := checker.Linearizability(h, checker.Options{})
	assert.Equal(t, checker.OK, p3.Status, p3.Summary)
	assert.Contains(t, p3.Summary, Spec)

	for _, v := range []DelayVariant{DelayIgnored, EarlyInvalidation} {
		bad := executeOrFail(t, LockDelayStory(v), 1, scenarios.Options{T: t, Verify: true})
		assert.Equal(t, checker.Violated, bad.Verdict("P3"), "%v", v)
	}

	var ops []history.Operation
	for _, op := range h.AllOps() {
		ops = append(ops, op)
	}
	i := slices.IndexFunc(ops, func(op history.Operation) bool {
		return op.Server == ServerNode && op.Input.Kind == model.OpConsulAcquire && !op.Output.OK && op.Output.Err == ""
	})
	require.GreaterOrEqual(t, i, 0, "an acquire was refused during the lock-delay")
	ops[i].Output.OK = true
	h.SetOps(ops)
	p3 = checker.Linearizability(h, checker.Options{})
	assert.Equal(t, checker.Violated, p3.Status, p3.Summary)
	assert.Contains(t, p3.Summary, "inside the lock-delay")
}
