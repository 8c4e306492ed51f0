package consul

import (
	"testing"

	"github.com/leasesim/leasesim/scenarios"
)

// TestLeasesimWorker is simrun's worker for --impl consul (leasesim.json):
// it skips unless simrun runs it with gohost.WorkerEnv naming a job.
func TestLeasesimWorker(t *testing.T) { scenarios.Worker(t, Scenarios()) }
