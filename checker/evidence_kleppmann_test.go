package checker_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// TestKleppmannViolationNamesThePause: without fencing, h1's stale write
// lands a few milliseconds after its 10 s pause ended. The pause is over at
// that instant, but it is the cause, and every violation lists it.
func TestKleppmannViolationNamesThePause(t *testing.T) {
	impl, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	out, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{Impl: impl})
	require.NoError(t, err)
	var seen int
	for _, r := range out.Checks {
		for _, v := range r.Violations {
			seen++
			var pause bool
			for _, f := range v.Faults {
				if f.Kind == history.FaultPause && f.Node() == "h1" {
					pause = true
					assert.Less(t, f.End, v.At, "%s: the pause had ended", v.Property)
					assert.GreaterOrEqual(t, f.End, v.At.Add(-checker.RecentFaultWindow(out.History.Lease)))
				}
			}
			assert.True(t, pause, "%s at %v lists h1's pause: %+v", v.Property, v.At, v.Faults)
		}
	}
	assert.GreaterOrEqual(t, seen, 2, "P2 and P3 are violated")
}
