package checker_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// TestCatalogHolds runs every built-in scenario with the correct
// implementation over a few seeds: no property may be violated. A failure
// names the scenario and the seed that reproduces it.
func TestCatalogHolds(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, sc := range scenarios.CatalogFor(lease.Correct()) { // a replicated store's: zoo/etcdraft's tests
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed=%d", sc.Name, seed), func(t *testing.T) {
				t.Parallel()
				out, err := scenarios.Execute(sc, seed, scenarios.Options{})
				require.NoError(t, err)
				require.NoError(t, out.Sim.Err, "the run hit a limit")
				for _, r := range out.Checks {
					assert.NotEqual(t, checker.Violated, r.Status,
						"%s %s: %s\n%v\nreproduce: simrun run --scenario %s --seed %d",
						r.Property, r.Name, r.Summary, r.Violations, sc.Name, seed)
					t.Logf("%s %-14s %-8s %s", r.Property, r.Name, r.Status, r.Summary)
				}
				t.Logf("metrics: %+v", out.Metrics)
			})
		}
	}
}
