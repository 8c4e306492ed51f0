package lockfix

import (
	"testing"

	"github.com/leasesim/leasesim/gohost"
)

// TestLeasesimWorker is simrun's worker: it skips unless simrun runs it.
func TestLeasesimWorker(t *testing.T) { gohost.Worker(t, Scenarios()) }
