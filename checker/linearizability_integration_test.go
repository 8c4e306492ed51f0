package checker_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/scenarios"
)

// TestLinearizabilityHoldsOnSwarm runs the swarm scenario (every fault kind
// the nemesis draws) with the correct implementation: P3 must be OK, never
// violated and never undecided.
func TestLinearizabilityHoldsOnSwarm(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5}
	if testing.Short() {
		seeds = seeds[:2]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			out, err := scenarios.Execute(scenarios.Swarm(), seed, scenarios.Options{})
			require.NoError(t, err)
			require.NoError(t, out.Sim.Err, "the run hit a limit")
			r := checker.Linearizability(out.History, checker.Options{})
			assert.Equal(t, checker.OK, r.Status, "%s\n%v\nreproduce: simrun run --scenario swarm --seed %d",
				r.Summary, r.Violations, seed)
			assert.Equal(t, "P3", r.Property)
			t.Log(r.Summary)
		})
	}
}
