package consul

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/scenarios"
)

// executeOrFail runs sc for seed and fails t if the run could not be made.
func executeOrFail(t *testing.T, sc scenarios.Scenario, seed uint64, opts scenarios.Options) *scenarios.Outcome {
	out, err := scenarios.Execute(sc, seed, opts)
	require.NoError(t, err, "%s seed %d", sc.Name, seed)
	return out
}
