package scenarios_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// ShrinkSeed keeps the first violated property and cuts the schedule down
// to one that still violates it; a passing seed has nothing to shrink.
func TestShrinkSeed(t *testing.T) {
	broken, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	tests := []struct {
		name    string
		sc      scenarios.Scenario
		impl    lease.Impl
		wantErr error
		target  string
	}{
		{"stale write accepted", scenarios.KleppmannGCPause(), broken, nil, "P2"},
		{"correct passes", scenarios.KleppmannGCPause(), lease.Correct(), scenarios.ErrNothingToShrink, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := scenarios.Options{Impl: tc.impl}
			s, err := scenarios.ShrinkSeed(tc.sc, 1, opts, 0)
			if tc.wantErr != nil {
				require.True(t, errors.Is(err, tc.wantErr), "got %v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.target, s.Target.Property)
			// The story's one fault, a 10 s pause at a failpoint, is
			// shortened to what still lets the stale write through.
			require.Len(t, s.Original.Events, 1)
			require.Len(t, s.Schedule.Events, 1)
			assert.Less(t, s.Schedule.Events[0].Duration, s.Original.Events[0].Duration, "shrunk:\n%s", s.Schedule)
			assert.Positive(t, s.Stats.Attempts)
			require.NoError(t, s.Schedule.Validate(tc.sc.Nodes()))

			opts.Schedule = &s.Schedule
			again, err := scenarios.Execute(tc.sc, 1, opts)
			require.NoError(t, err)
			var still bool
			for _, r := range again.Violated() {
				still = still || r.Property == tc.target
			}
			assert.True(t, still, "the shrunk schedule still violates %s", tc.target)
		})
	}
}

// The shrinker's attempt limit holds: a limit of one run stops early.
func TestShrinkSeedStopsAtTheAttemptLimit(t *testing.T) {
	broken, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	s, err := scenarios.ShrinkSeed(scenarios.KleppmannGCPause(), 1, scenarios.Options{Impl: broken}, 1)
	require.NoError(t, err)
	assert.Equal(t, 1, s.Stats.Attempts)
	assert.True(t, s.Stats.Exhausted)
	assert.Equal(t, checker.Violated, s.Target.Status)
}
