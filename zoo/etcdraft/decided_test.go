package etcdraft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/scenarios"
)

// TestP3DecidesLargeLessorHistories runs the two seeds of seeds 1-300 whose
// P3 porcupine left undecided within its step budget (one resource of 613
// and one of 3,943 operations, whose members answered out of revision
// order): the order of the revisions their replies name is a witness, so
// P3 is decided (ok), not unknown. RESULTS.md has the sweep.
func TestP3DecidesLargeLessorHistories(t *testing.T) {
	for _, run := range []struct {
		scenario string
		seed     uint64
	}{{"message-chaos", 216}, {"thundering-herd", 28}} {
		t.Run(run.scenario, func(t *testing.T) {
			sc, err := scenarios.Lookup(run.scenario)
			require.NoError(t, err)
			out := execute(t, sc, run.seed, Impl())
			for _, r := range out.Checks {
				if r.Property == "P3" {
					assert.Equal(t, checker.OK, r.Status, r.Summary)
				}
			}
			assert.Equal(t, checker.OK, out.Verdict("P3"))
		})
	}
}
