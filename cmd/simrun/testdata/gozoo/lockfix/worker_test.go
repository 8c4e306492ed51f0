package lockfix

import (
	"testing"

	"github.com/leasesim/leasesim/scenarios"
)

// TestLeasesimWorker is simrun's worker: it skips unless simrun runs it.
func TestLeasesimWorker(t *testing.T) {
	scenarios.TunableWorker(t, scenarios.Tunable{Knobs: Knobs, Scenarios: TunedScenarios})
}
