package nodelease_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/zoo/k8s/nodelease"
)

// verdicts are a scenario's P7 and P8.
type verdicts struct{ p7, p8 checker.Status }

// expected is what each story must show, with its premise held, for each
// impl: Kubernetes as it runs, the controller without its grace-period
// check, and kubelets without the connection reset. A story without a
// stop has nothing for P8 to judge (unknown).
var expected = map[string]map[string]verdicts{
	"k8s/nodelease": {
		"node-clock-step-back":    {checker.Violated, checker.Unknown},
		"controller-clock-jump":   {checker.Violated, checker.Unknown},
		"renew-near-grace":        {checker.Violated, checker.Unknown},
		"node-partitioned":        {checker.OK, checker.OK},
		"node-connection-stalled": {checker.OK, checker.Unknown},
	},
	"k8s/nodelease/no-grace-check": {
		"node-clock-step-back":    {checker.OK, checker.Unknown},
		"controller-clock-jump":   {checker.OK, checker.Unknown},
		"renew-near-grace":        {checker.OK, checker.Unknown},
		"node-partitioned":        {checker.OK, checker.Violated},
		"node-connection-stalled": {checker.OK, checker.Unknown},
	},
	"k8s/nodelease/no-conn-reset": {
		"node-connection-stalled": {checker.OK, checker.Unknown},
	},
}

// TestScenarios runs every story of every impl on seeds 1-2, verified
// (run twice). no-conn-reset runs only the stalled connection: it changes
// nothing else.
func TestScenarios(t *testing.T) {
	for _, sc := range allScenarios() {
		want, ok := expected[sc.impl][sc.Name]
		if sc.impl == "k8s/nodelease/no-conn-reset" && !ok {
			continue
		}
		require.True(t, ok, "no expectation for %s of %s", sc.Name, sc.impl)
		t.Run(sc.impl+"/"+sc.Name, func(t *testing.T) {
			for seed := uint64(1); seed <= 2; seed++ {
				out := executeOrFail(t, sc.Scenario, seed, scenarios.Options{T: t, Verify: true})
				require.NoError(t, out.Goroutine.Err(), "seed %d", seed)
				assert.Equal(t, history.Verified, out.Goroutine.Level.Determinism, "seed %d", seed)
				assert.Equal(t, want, verdicts{out.Verdict("P7"), out.Verdict("P8")}, "seed %d: %+v", seed, out.Checks)
				assert.Equal(t, checker.OK, out.Verdict("premise"), "seed %d premises: %+v", seed, out.History.Premises)
				assert.Equal(t, checker.OK, out.Verdict("P3"), "seed %d: the API server's Leases are linearizable", seed)
			}
		})
	}
}

// TestStalledConnectionNeedsNoConnReset shows what the connection reset
// changes in node-connection-stalled over HTTP/1.1: nothing. The
// timed-out request closes the stalled connection itself, the retry
// renews over a new one, and the hook (called only after a second failed
// attempt) never runs: the runs with and without it have one trace hash.
// The premise shows the stall bit: a renewal was lost in it.
func TestStalledConnectionNeedsNoConnReset(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		with := executeOrFail(t, nodelease.NodeConnectionStalled(nodelease.Variant{}), seed, scenarios.Options{T: t})
		without := executeOrFail(t, nodelease.NodeConnectionStalled(nodelease.Variant{NoConnReset: true}), seed,
			scenarios.Options{T: t})
		require.Equal(t, checker.OK, with.Verdict("premise"), "seed %d: %+v", seed, with.History.Premises)
		assert.Equal(t, with.Goroutine.Hash, without.Goroutine.Hash, "seed %d", seed)
	}
}
