package k8s_test

import (
	"testing"

	"github.com/leasesim/leasesim/scenarios"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// TestLeasesimWorker is simrun's worker for k8s/leaderelection (the
// fenced store): it skips unless simrun runs it (leasesim.json).
func TestLeasesimWorker(t *testing.T) { scenarios.Worker(t, k8s.Scenarios()) }

// TestLeasesimWorkerUnfenced is simrun's worker for
// k8s/leaderelection/unfenced (a store that takes every write).
func TestLeasesimWorkerUnfenced(t *testing.T) { scenarios.Worker(t, k8s.UnfencedScenarios()) }
