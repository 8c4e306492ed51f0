package nodelease_test

import (
	"testing"

	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/zoo/k8s/nodelease"
)

// TestLeasesimWorker is simrun's worker for k8s/nodelease: it skips
// unless simrun runs it (../leasesim.json).
func TestLeasesimWorker(t *testing.T) {
	scenarios.TunableWorker(t, scenarios.Tunable{Knobs: nodelease.Knobs, Scenarios: nodelease.TunedScenarios})
}

// TestLeasesimWorkerNoGraceCheck is simrun's worker for
// k8s/nodelease/no-grace-check.
func TestLeasesimWorkerNoGraceCheck(t *testing.T) {
	scenarios.TunableWorker(t, scenarios.Tunable{Knobs: nodelease.Knobs, Scenarios: nodelease.TunedNoGraceCheckScenarios})
}

// TestLeasesimWorkerNoConnReset is simrun's worker for
// k8s/nodelease/no-conn-reset.
func TestLeasesimWorkerNoConnReset(t *testing.T) {
	scenarios.TunableWorker(t, scenarios.Tunable{Knobs: nodelease.Knobs, Scenarios: nodelease.TunedNoConnResetScenarios})
}

// TestLeasesimWorkerDisableHTTP2 is simrun's worker for
// k8s/nodelease/disable-http2.
func TestLeasesimWorkerDisableHTTP2(t *testing.T) {
	scenarios.TunableWorker(t, scenarios.Tunable{Knobs: nodelease.Knobs, Scenarios: nodelease.TunedDisableHTTP2Scenarios})
}
