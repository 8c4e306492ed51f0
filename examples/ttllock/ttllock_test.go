package ttllock_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/examples/ttllock"
	"github.com/leasesim/leasesim/scenarios"
)

// The Kleppmann story over five seeds, each run twice (verified): the
// premises held, and P1 and P2 hold on every seed.
func TestKleppmann(t *testing.T) {
	scenarios.Run(t, ttllock.Kleppmann(), scenarios.Seeds(1, 5),
		scenarios.WithOptions(scenarios.Options{Verify: true}),
		scenarios.Expect(func(t *testing.T, out *scenarios.Outcome) {
			for _, p := range []string{"P1", "P2", "premise"} {
				assert.Equal(t, checker.OK, out.Verdict(p), p)
			}
		}))
}

// A lock that fences with a session id lets the paused younger session's
// write land after the older session's, which took the lock over: P2 is
// violated by the rule on the order the lock changed hands, while P1
// holds (h2 stopped believing at its deadline). Each seed runs twice
// (verified). With a token per acquisition the same story is fenced.
func TestSessionAgeHandover(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		out, err := scenarios.Execute(ttllock.SessionAgeHandover(), seed, scenarios.Options{T: t, Verify: true})
		require.NoError(t, err)
		require.NoError(t, out.Err())
		assert.Equal(t, checker.OK, out.Verdict("premise"), "seed %d: the story happened", seed)
		assert.Equal(t, checker.OK, out.Verdict("P1"), "seed %d", seed)
		p2 := result(t, out, "P2")
		require.Equal(t, checker.Violated, p2.Status, "seed %d: %s", seed, p2.Summary)
		for _, v := range p2.Violations {
			assert.Contains(t, v.Detail, "the lease had changed hands", "seed %d: only the hand-over rule", seed)
		}
		assert.Contains(t, p2.Violations[0].Detail, "by h2 under token 2 after a write by h1 under token 1")

		fenced, err := scenarios.Execute(ttllock.SessionAgeHandoverFenced(), seed, scenarios.Options{T: t})
		require.NoError(t, err)
		for _, p := range []string{"P1", "P2", "premise"} {
			assert.Equal(t, checker.OK, fenced.Verdict(p), "seed %d: %s", seed, p)
		}
	}
}

// result returns out's verdict on property.
func result(t *testing.T, out *scenarios.Outcome, property string) checker.Result {
	t.Helper()
	for _, r := range out.Checks {
		if r.Property == property {
			return r
		}
	}
	t.Fatalf("no verdict on %s", property)
	return checker.Result{}
}
