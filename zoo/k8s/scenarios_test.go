package k8s_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// expected is what a scenario must show on every seed: P1 and P3 as
// judged (k8s.Judge), P2, and its premises held.
var expected = map[string]struct{ p1, p2, p3 checker.Status }{
	"leader-cut-off":    {checker.OK, checker.OK, checker.OK},
	"leader-io-stalled": {checker.OK, checker.OK, checker.OK},
	"slow-shutdown":     {checker.OK, checker.OK, checker.OK},
	"thundering-herd":   {checker.OK, checker.OK, checker.OK},
	// Unfenced, the store takes the old leader's late writes: P2 sees a
	// token go down, and P3 sees the store break the fenced register.
	"leader-cut-off/unfenced":    {checker.OK, checker.OK, checker.OK},
	"leader-io-stalled/unfenced": {checker.OK, checker.Violated, checker.Violated},
	"slow-shutdown/unfenced":     {checker.OK, checker.Violated, checker.Violated},
	"thundering-herd/unfenced":   {checker.OK, checker.OK, checker.OK},
}

func TestScenarios(t *testing.T) {
	require.True(t, k8s.GlobalRandSeeded(), "rand.Seed is a no-op: the test binary needs //go:debug randseednop=0")
	for _, sc := range k8s.Scenarios() {
		want, ok := expected[sc.Name]
		require.True(t, ok, "no expectation for %s", sc.Name)
		t.Run(sc.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				out := k8s.Execute(t, sc, seed, gohost.Options{Verify: true})
				require.NoError(t, out.Result.Err(), "seed %d", seed)
				assert.Equal(t, history.Verified, out.Result.Level.Determinism, "seed %d", seed)
				assert.Equal(t, want.p1, out.Verdict("P1"), "seed %d P1", seed)
				assert.Equal(t, want.p2, out.Verdict("P2"), "seed %d P2", seed)
				assert.Equal(t, want.p3, out.Verdict("P3"), "seed %d P3", seed)
				assert.Equal(t, checker.OK, out.Verdict("premise"), "seed %d premises: %+v", seed, out.Premises())
			}
		})
	}
}

// TestFencingRefusesTheOldLeader: in the stories where the old leader
// writes late, the fenced store refuses at least one of its writes (the
// fence is what keeps P2), and the unfenced one accepts them.
func TestFencingRefusesTheOldLeader(t *testing.T) {
	for _, mk := range []func(bool) gohost.Scenario{k8s.LeaderStalled, k8s.SlowShutdown} {
		fenced := k8s.Execute(t, mk(false), 1, gohost.Options{})
		refused := 0
		for _, op := range fenced.Result.History.Ops {
			if op.Server == k8s.StoreName && op.Client == "c1" && !op.Output.OK {
				refused++
			}
		}
		assert.Positive(t, refused, "%s: the store refused none of c1's writes", fenced.Scenario)
		unfenced := k8s.Execute(t, mk(true), 1, gohost.Options{})
		assert.Equal(t, checker.Violated, unfenced.Verdict("P2"), unfenced.Scenario)
	}
}

func TestSameSeedSameHash(t *testing.T) {
	sc := k8s.ThunderingHerd(false)
	a := k8s.Execute(t, sc, 7, gohost.Options{})
	b := k8s.Execute(t, sc, 7, gohost.Options{})
	c := k8s.Execute(t, sc, 8, gohost.Options{})
	assert.Equal(t, a.Result.Hash, b.Result.Hash)
	assert.NotEqual(t, a.Result.Hash, c.Result.Hash)
}

// TestShrinkSlowShutdown: the unsafe configuration's violation shrinks to
// at most three faults and the shrunk schedule replays to the same hash.
func TestShrinkSlowShutdown(t *testing.T) {
	sc := k8s.SlowShutdown(true)
	s, err := gohost.Shrink(t, sc, 1, 50)
	require.NoError(t, err)
	assert.Equal(t, "P2", s.Target.Property)
	assert.LessOrEqual(t, len(s.Schedule.Events), 3, "shrunk: %s", s.Schedule)
	again := k8s.Execute(t, sc, 1, gohost.Options{Schedule: &s.Schedule, Verify: true})
	assert.Equal(t, s.Hash, again.Result.Hash)
	assert.Equal(t, checker.Violated, again.Verdict("P2"))
	assert.Equal(t, history.Verified, again.Result.Level.Determinism)
}
