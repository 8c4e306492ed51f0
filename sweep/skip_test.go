package sweep_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
)

// bare is leasesim's implementation declaring no optional capability.
func bare() lease.Impl {
	return lease.Impl{Name: "bare", NewGrantor: lease.NewGrantor, NewHolder: lease.NewHolder, NewResource: lease.NewResource}
}

// TestSweepSkipsUnsupportedScenarios: a sweep runs the scenarios the
// implementation supports and lists the others with the reason; with
// nothing left to run it is bad input that names every reason.
func TestSweepSkipsUnsupportedScenarios(t *testing.T) {
	cfg := sweep.Config{
		Scenarios: []scenarios.Scenario{scenarios.KleppmannGCPause(), scenarios.AsymmetricPartition()},
		Impl:      bare(),
		Seeds:     sweep.Seeds{First: 1, Last: 2},
		Parallel:  1,
	}
	s, err := sweep.Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"asymmetric-partition"}, s.Scenarios)
	assert.Equal(t, 2, s.Runs)
	require.Len(t, s.Skipped, 1)
	assert.Equal(t, "kleppmann-gc-pause", s.Skipped[0].Scenario)
	assert.Contains(t, s.Skipped[0].Reason, "failpoint before-write")

	merged, err := sweep.Merge(s)
	require.NoError(t, err)
	assert.Equal(t, s.Skipped, merged.Skipped, "a merge keeps what was skipped")

	cfg.Scenarios = cfg.Scenarios[:1]
	_, err = sweep.Run(context.Background(), cfg)
	require.ErrorIs(t, err, sweep.ErrInvalid)
	assert.Contains(t, err.Error(), "no scenario applies to bare")
	assert.Contains(t, err.Error(), "kleppmann-gc-pause needs failpoint before-write")
}
