package k8s_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// verdicts are a scenario's P1, P2, P3 and P4.
type verdicts struct{ p1, p2, p3, p4 checker.Status }

// expected is what each scenario must show on seeds 1-3, fenced and
// unfenced, with its premises held. P4 holds everywhere: the candidates
// keep contending, and one leads again after the heal.
var expected = map[bool]map[string]verdicts{
	false: {
		"leader-cut-off":    {checker.OK, checker.OK, checker.OK, checker.OK},
		"leader-io-stalled": {checker.OK, checker.OK, checker.OK, checker.OK},
		// The old leader's work outlives its lead: it acts (writes) after
		// the new leader starts, until the fence refuses it.
		"slow-shutdown":   {checker.Violated, checker.OK, checker.OK, checker.OK},
		"thundering-herd": {checker.OK, checker.OK, checker.OK, checker.OK},
	},
	// Unfenced, the store takes the old leader's late writes: P2 sees a
	// token go down. P3 sees the store break the fenced register where the
	// stale write was sent after the new leader's was answered
	// (slow-shutdown); a write frozen in its sender from before the new
	// leader's (leader-io-stalled) was in flight across it, so some order
	// of the two is legal and P3 holds: the stale write is P2's to catch.
	true: {
		"leader-cut-off":    {checker.OK, checker.OK, checker.OK, checker.OK},
		"leader-io-stalled": {checker.OK, checker.Violated, checker.OK, checker.OK},
		"slow-shutdown":     {checker.Violated, checker.Violated, checker.Violated, checker.OK},
		"thundering-herd":   {checker.OK, checker.OK, checker.OK, checker.OK},
	},
}

func TestScenarios(t *testing.T) {
	for _, unfenced := range []bool{false, true} {
		scs := k8s.Scenarios()
		if unfenced {
			scs = k8s.UnfencedScenarios()
		}
		require.Len(t, scs, len(expected[unfenced]))
		for _, sc := range scs {
			want, ok := expected[unfenced][sc.Name]
			require.True(t, ok, "no expectation for %s (unfenced %v)", sc.Name, unfenced)
			t.Run(fmt.Sprintf("%s/unfenced=%v", sc.Name, unfenced), func(t *testing.T) {
				for seed := uint64(1); seed <= 3; seed++ {
					out := executeOrFail(t, sc, seed, scenarios.Options{T: t, Verify: true})
					require.NoError(t, out.Goroutine.Err(), "seed %d", seed)
					assert.Equal(t, history.Verified, out.Goroutine.Level.Determinism, "seed %d", seed)
					got := verdicts{out.Verdict("P1"), out.Verdict("P2"), out.Verdict("P3"), out.Verdict("P4")}
					assert.Equal(t, want, got, "seed %d: %+v", seed, out.Checks)
					assert.Equal(t, checker.OK, out.Verdict("premise"), "seed %d premises: %+v", seed, out.History.Premises)
				}
			})
		}
	}
}

// TestFencingRefusesTheOldLeader: in the stories where the old leader
// writes late, the fenced store refuses at least one of its writes (the
// fence is what keeps P2), and the unfenced one accepts them.
func TestFencingRefusesTheOldLeader(t *testing.T) {
	for _, mk := range []func(bool) scenarios.Scenario{k8s.LeaderStalled, k8s.SlowShutdown} {
		fenced := executeOrFail(t, mk(false), 1, scenarios.Options{T: t})
		refused := 0
		for _, op := range fenced.Goroutine.History.AllOps() {
			if op.Server == k8s.StoreName && op.Client == "c1" && !op.Output.OK {
				refused++
			}
		}
		assert.Positive(t, refused, "%s: the store refused none of c1's writes", fenced.Scenario)
		unfenced := executeOrFail(t, mk(true), 1, scenarios.Options{T: t})
		assert.Equal(t, checker.Violated, unfenced.Verdict("P2"), unfenced.Scenario)
	}
}

func TestSameSeedSameHash(t *testing.T) {
	sc := k8s.ThunderingHerd(false)
	a := executeOrFail(t, sc, 7, scenarios.Options{T: t})
	b := executeOrFail(t, sc, 7, scenarios.Options{T: t})
	c := executeOrFail(t, sc, 8, scenarios.Options{T: t})
	assert.Equal(t, a.Goroutine.Hash, b.Goroutine.Hash)
	assert.NotEqual(t, a.Goroutine.Hash, c.Goroutine.Hash)
}

// TestShrinkSlowShutdown: the unsafe configuration's violation (P1
// first: the old leader acts after the new one starts) shrinks to at most
// three faults and the shrunk schedule replays to the same hash.
func TestShrinkSlowShutdown(t *testing.T) {
	sc := k8s.SlowShutdown(true)
	s, err := scenarios.ShrinkSeed(sc, 1, scenarios.Options{T: t}, 50)
	require.NoError(t, err)
	assert.Equal(t, "P1", s.Target.Property)
	assert.LessOrEqual(t, len(s.Schedule.Events), 3, "shrunk: %s", s.Schedule)
	again := executeOrFail(t, sc, 1, scenarios.Options{T: t, Schedule: &s.Schedule, Verify: true})
	assert.Equal(t, s.Hash, again.Goroutine.Hash)
	assert.Equal(t, checker.Violated, again.Verdict("P1"))
	assert.Equal(t, history.Verified, again.Goroutine.Level.Determinism)
}

// TestSlowShutdownActsAfterItsLead: the P1 violation of slow-shutdown is
// the old leader's writes after client-go cancelled its lead: its belief
// ends at its last action (Node.Act), after the new leader's began.
func TestSlowShutdownActsAfterItsLead(t *testing.T) {
	out := executeOrFail(t, k8s.SlowShutdown(false), 1, scenarios.Options{T: t})
	var old, next *history.BeliefInterval
	for i := range out.Goroutine.History.Beliefs {
		b := &out.Goroutine.History.Beliefs[i]
		switch {
		case b.Holder == "c1" && b.Token == 0:
			old = b
		case b.Token == 1 && next == nil:
			next = b
		}
	}
	require.NotNil(t, old, "c1 never led")
	require.NotNil(t, next, "nobody led after c1")
	assert.Equal(t, old.End, old.LastAct, "c1's belief should end at its last write")
	assert.Greater(t, old.LastAct, next.Start, "c1's last write should follow %s's start", next.Holder)
	assert.Equal(t, checker.Violated, out.Verdict("P1"))
}
