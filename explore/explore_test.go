package explore_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/explore"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// mutant returns the public mutant named name.
func mutant(t *testing.T, name string) lease.Impl {
	t.Helper()
	for _, m := range mutants.All() {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no mutant %s", name)
	return lease.Impl{}
}

// swarm is the scenario the tests explore.
func swarm(t *testing.T) scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Lookup("swarm")
	require.NoError(t, err)
	return sc
}

// The same explorer seed makes the same runs, the same corpus and the
// same first failure, shrunk the same way; another seed makes other runs.
func TestExploreDeterministic(t *testing.T) {
	cfg := explore.Config{Scenario: swarm(t), Impl: mutant(t, "mutant/stale-release"), Seed: 3, Budget: 30, ShrinkAttempts: 8}
	a, err := explore.Explore(cfg)
	require.NoError(t, err)
	b, err := explore.Explore(cfg)
	require.NoError(t, err)
	require.NotNil(t, a.Failure, "stale-release is found within 30 runs")
	assert.Equal(t, a.Steps, b.Steps, "the same runs in the same order")
	assert.Equal(t, a.Corpus, b.Corpus)
	assert.Equal(t, a.Failure, b.Failure, "the same first failure, shrunk the same")
	assert.Equal(t, a.Replay("s.json"), b.Replay("s.json"))

	cfg.Seed = 4
	c, err := explore.Explore(cfg)
	require.NoError(t, err)
	assert.NotEqual(t, a.Steps[0].Seed, c.Steps[0].Seed, "another explorer seed draws other runs")
}

// The explorer finds a known mutant within a small budget and returns it
// shrunk, with the line that replays it; the shrunk schedule, run again,
// still violates the property.
func TestExploreFindsStaleRelease(t *testing.T) {
	sc, impl := swarm(t), mutant(t, "mutant/stale-release")
	r, err := explore.Explore(explore.Config{Scenario: sc, Impl: impl, Seed: 3, Budget: 30, ShrinkAttempts: 10})
	require.NoError(t, err)
	require.NotNil(t, r.Failure, "found within 30 runs")
	f := r.Failure
	assert.Equal(t, r.Runs, f.Run, "the search stops at the first failure")
	assert.Len(t, r.Steps, f.Run)
	assert.Regexp(t, `^P[1-8]$`, f.Violated.Property)
	assert.Equal(t, checker.Violated, f.Violated.Status)
	assert.LessOrEqual(t, len(f.Shrunk.Events), len(f.Input.Schedule.Events))
	assert.Equal(t, "simrun run --scenario swarm --seed "+itoa(f.Input.Seed)+" --impl mutant/stale-release --schedule s.json",
		r.Replay("s.json"))

	out, err := scenarios.Execute(sc, f.Input.Seed, scenarios.Options{Impl: impl, Schedule: &f.Shrunk})
	require.NoError(t, err)
	assert.Equal(t, checker.Violated, out.Verdict(f.Violated.Property), "the shrunk schedule replays the violation")
	assert.Equal(t, f.Hash, out.TraceHash())
}

// Within its budget on a correct implementation, the explorer finds
// nothing and says what its runs reached and what they never did; the
// corpus grows only with runs that reached something new.
func TestExploreNothingFound(t *testing.T) {
	r, err := explore.Explore(explore.Config{Scenario: swarm(t), Seed: 4, Budget: 16})
	require.NoError(t, err)
	assert.Nil(t, r.Failure)
	assert.Equal(t, 16, r.Runs)
	assert.Equal(t, "correct", r.Impl)
	require.NotEmpty(t, r.Reached)
	assert.Empty(t, r.NotApplicable, "leasesim's own implementation can reach every behaviour")
	all := append(slices.Clone(r.Reached), r.Unreached...)
	assert.Len(t, all, len(checker.Behaviours()), "every behaviour is reached or unreached")
	assert.Contains(t, r.Unreached, "drift-beyond-rho", "swarm never drifts beyond rho")
	assert.Equal(t, len(r.Reached), r.Steps[len(r.Steps)-1].Reached)
	for i, st := range r.Steps {
		assert.Equal(t, i+1, st.Run)
		if i > 0 {
			assert.GreaterOrEqual(t, st.Corpus, r.Steps[i-1].Corpus, "the corpus only grows")
		}
	}
	assert.Len(t, r.Corpus, r.Steps[len(r.Steps)-1].Corpus)
	assert.Less(t, len(r.Corpus), r.Runs, "a run that reached nothing new stays out of the corpus")
}

// Bad input is an error that matches ErrInvalid and names what is wrong.
func TestExploreBadInput(t *testing.T) {
	sc := swarm(t)
	for _, tc := range []struct {
		name string
		cfg  explore.Config
		want string
	}{
		{"negative budget", explore.Config{Scenario: sc, Budget: -1}, "budget -1"},
		{"budget too large", explore.Config{Scenario: sc, Budget: explore.MaxBudget + 1}, "budget"},
		{"negative shrink attempts", explore.Config{Scenario: sc, ShrinkAttempts: -2}, "shrink attempts -2"},
		{"no scenario", explore.Config{}, "invalid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := explore.Explore(tc.cfg)
			require.ErrorIs(t, err, explore.ErrInvalid)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	leader, err := scenarios.Lookup("leader-stall")
	require.NoError(t, err)
	_, err = explore.Explore(explore.Config{Scenario: leader, Budget: 1})
	var unsupported *scenarios.UnsupportedError
	assert.ErrorAs(t, err, &unsupported, "a scenario the implementation cannot run is refused before any run")
}
