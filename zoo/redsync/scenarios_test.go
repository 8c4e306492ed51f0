package redsync

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// No test here is parallel: the runs seed the process-global crypto/rand
// (gohost.Config.SeedCryptoRand, testing/cryptotest).

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
	// Every story's holders keep contending for the lock (Contended), and
	// the heal ends every fault (Redis restarted): some live holder holds
	// it again within P4's bound.
	assert.Equal(t, checker.OK, out.Verdict("P4"), "%s seed %d", sc.Name, seed)
	return out
}

func TestRedsyncAgainstTheServer(t *testing.T) {
	s := Setup{Holders: holders(1, 0), Fencing: Fenced, Duration: 25 * time.Second}
	res := gohost.Run(t, s.Config(), 1)
	require.NoError(t, res.Err())
	h := res.History
	require.NotEmpty(t, h.Beliefs)
	assert.Equal(t, history.EndRelease, h.Beliefs[0].Reason, "Lock, Extend in a loop, Unlock: %+v", h.Beliefs[0])
	kinds := map[string]int{}
	for _, op := range h.AllOps() {
		if op.Server != RedisNode {
			continue
		}
		require.True(t, op.Returned(), "no fault, every reply arrives: %+v", op)
		k := op.Input.Kind
		if op.Output.Err != "" {
			k += " " + op.Output.Err
		} else if op.Output.OK {
			k += " ok"
		}
		kinds[k]++
	}
	// redigo's EVALSHA misses the empty script cache once per script, then
	// EVAL sends redsync's body, which must hash to a known script.
	assert.Equal(t, 1, kinds["pexpire_if_equal bad_request"], "%v", kinds)
	assert.Equal(t, 1, kinds["del_if_equal bad_request"], "%v", kinds)
	assert.Positive(t, kinds["pexpire_if_equal ok"], "%v", kinds)
	assert.Positive(t, kinds["del_if_equal ok"], "%v", kinds)
	assert.Positive(t, kinds["set_nx_px ok"], "%v", kinds)
	assert.Positive(t, kinds["incr ok"], "%v", kinds)
	assert.Equal(t, checker.OK, checker.Linearizability(h, checker.Options{}).Status)
}

func TestGCPause(t *testing.T) {
	for _, tt := range []struct {
		fencing Fencing
		p2, p3  checker.Status
	}{
		// token 0 believed by h1 and h2: one token for two holders.
		{NoToken, checker.Violated, checker.OK},
		// h1's token-1 write accepted after h2's token-2 writes (P3 judges
		// the store as a fenced register, which an unfenced store is not).
		{TokenUnenforced, checker.Violated, checker.Violated},
		// the fenced store refuses h1's stale write.
		{Fenced, checker.OK, checker.OK},
	} {
		t.Run(tt.fencing.String(), func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				out := execute(t, GCPause(tt.fencing), seed)
				// h1 decided to write while it held the lock: its action
				// counts at that decision, so its belief ends at its
				// deadline and P1 holds; the write that leaves after the
				// pause is fencing's (P2) to refuse.
				assert.Equal(t, checker.OK, out.Verdict("P1"), "seed %d", seed)
				assert.Equal(t, tt.p2, out.Verdict("P2"), "seed %d", seed)
				assert.Equal(t, tt.p3, out.Verdict("P3"), "seed %d", seed)
				after := history.Time(DefaultHolder.Expiry + 3*time.Second)
				var stale, acted bool
				for _, op := range out.Goroutine.History.AllOps() {
					stale = stale || op.Server == StoreNode && op.Client == "h1" && op.Call > after
				}
				for _, b := range out.Goroutine.History.Beliefs {
					if b.Holder == "h1" { // h1's first belief: the one the pause fell in
						acted = b.LastAct > after || b.End > after
						break
					}
				}
				assert.True(t, stale, "h1's write after the pause reached the store")
				assert.False(t, acted, "h1's action counts at its decision, before the pause: %+v", out.Goroutine.History.Beliefs)
			}
		})
	}
}

func TestContention(t *testing.T) {
	var faulted int
	for seed := uint64(1); seed <= 3; seed++ {
		out := execute(t, Contention(Fenced), seed)
		assert.Equal(t, checker.OK, out.Verdict("P2"), "seed %d: the INCR token and the fenced store", seed)
		assert.Equal(t, checker.OK, out.Verdict("P3"), "seed %d", seed)
		if len(out.Schedule.Events) > 0 {
			faulted++
		}
		nt := execute(t, Contention(NoToken), seed)
		assert.Equal(t, checker.Violated, nt.Verdict("P2"), "seed %d: without a token every holder writes under 0", seed)
	}
	assert.GreaterOrEqual(t, faulted, 2, "the nemesis drew faults")
}

func TestServerRestart(t *testing.T) {
	var p1 int
	for seed := uint64(1); seed <= 3; seed++ {
		out := execute(t, ServerRestart(false), seed)
		assert.Equal(t, checker.Violated, out.Verdict("P3"), "seed %d: the restarted Redis lost a key it had set", seed)
		assert.Equal(t, checker.Violated, out.Verdict("P2"), "seed %d: INCR started again at 1", seed)
		if out.Verdict("P1") == checker.Violated {
			p1++
		}
		aof := execute(t, ServerRestart(true), seed)
		assert.Equal(t, checker.OK, aof.Verdict("P1"), "seed %d", seed)
		assert.Equal(t, checker.OK, aof.Verdict("P2"), "seed %d", seed)
		assert.Equal(t, checker.OK, aof.Verdict("P3"), "seed %d", seed)
	}
	assert.Positive(t, p1, "h2 locked while h1 still believed in some seed")
}

// The unsafe configuration's failing seed shrinks to at most 3 faults and
// replays to the same hash.
func TestShrinkAndReplay(t *testing.T) {
	sc := GCPause(TokenUnenforced)
	s, err := scenarios.ShrinkSeed(sc, 2, scenarios.Options{T: t}, 50)
	require.NoError(t, err)
	assert.Equal(t, "P2", s.Target.Property)
	assert.LessOrEqual(t, len(s.Schedule.Events), 3, "shrunk: %s", s.Schedule)
	again := executeOrFail(t, sc, 2, scenarios.Options{T: t, Schedule: &s.Schedule, Verify: true})
	assert.Equal(t, s.Hash, again.Goroutine.Hash)
	assert.Equal(t, checker.Violated, again.Verdict("P2"))
	assert.Equal(t, history.Verified, again.Goroutine.Level.Determinism)
}

func TestClockDrift(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		within := execute(t, ClockDrift(0.01), seed)
		assert.Equal(t, checker.OK, within.Verdict("P1"), "seed %d: the drift factor covers 1%%", seed)
		beyond := execute(t, ClockDrift(0.03), seed)
		// Redis expired the key before h1's Until(): an overlap, under a
		// drift beyond the rho the lease was configured for, so P1 says
		// the assumption was exceeded (unknown), not that redsync is wrong.
		assert.Equal(t, checker.Unknown, beyond.Verdict("P1"), "seed %d", seed)
		for _, r := range beyond.Checks {
			if r.Property == "P1" {
				assert.True(t, r.AssumptionExceeded, "seed %d: %s", seed, r.Summary)
				assert.NotEmpty(t, r.Violations, "seed %d: the overlap is still shown", seed)
			}
		}
		for _, out := range []*scenarios.Outcome{within, beyond} {
			assert.Equal(t, checker.OK, out.Verdict("P2"), "seed %d", seed)
			assert.Equal(t, checker.OK, out.Verdict("P3"), "seed %d: expiry on the server's own clock", seed)
			assert.NotEmpty(t, out.Goroutine.NotApplied, "drift applies to Redis's Node.Clock only")
		}
	}
}

// The swarm reaches the rare paths a sweep counts. With appendonly the
// fenced holders keep P1 and P2; volatile, a Redis restart loses the lock
// and the token counter: seed 6 hands the lock to a second holder whose
// INCR token is lower, its write is fenced and it stops believing (P2
// violated, belief-ended-fenced reached). Seed 7 slows a write to the
// store while the lock changes hands (hands-changed-mid-write).
func TestSwarm(t *testing.T) {
	for _, tc := range []struct {
		appendOnly bool
		seed       uint64
		p2         checker.Status
		reached    []string
	}{
		{true, 1, checker.OK, []string{"write-accepted", "belief-ended-release"}},
		{true, 2, checker.OK, []string{"write-accepted"}},
		{false, 6, checker.Violated, []string{"write-fenced", "belief-ended-fenced", "belief-ended-crash", "grantor-crash-live-lease"}},
		{false, 7, checker.OK, []string{"belief-through-fault", "grant-while-paused", "hands-changed-mid-write"}},
	} {
		sc := Swarm(tc.appendOnly)
		out := executeOrFail(t, sc, tc.seed, scenarios.Options{T: t, Verify: true})
		require.NoError(t, out.Goroutine.Err(), "%s seed %d", sc.Name, tc.seed)
		assert.NotEmpty(t, out.Schedule.Events, "%s seed %d: the nemesis drew faults", sc.Name, tc.seed)
		assert.Equal(t, tc.p2, out.Verdict("P2"), "%s seed %d", sc.Name, tc.seed)
		if tc.appendOnly {
			assert.Equal(t, checker.OK, out.Verdict("P1"), "%s seed %d", sc.Name, tc.seed)
		}
		assert.Subset(t, checker.Cover(out.History).Reached(), tc.reached, "%s seed %d", sc.Name, tc.seed)
	}
}
