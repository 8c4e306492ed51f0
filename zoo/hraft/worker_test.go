package hraft

import (
	"testing"

	"github.com/leasesim/leasesim/scenarios"
)

// TestLeasesimWorker is simrun's worker for --impl hraft (leasesim.json):
// it skips unless simrun runs it with gohost.WorkerEnv naming a job.
func TestLeasesimWorker(t *testing.T) {
	scenarios.TunableWorker(t, scenarios.Tunable{Knobs: Knobs, Scenarios: TunedScenarios})
}
