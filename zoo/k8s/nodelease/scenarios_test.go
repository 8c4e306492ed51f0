package nodelease_test

import (
	"fmt"
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

// expected is what each story must show, with its premise held, for the
// controller's model as Kubernetes runs it and without its grace-period
// check. A story without a stop has nothing for P8 to judge (unknown).
var expected = map[bool]map[string]verdicts{
	false: {
		"node-clock-step-back":  {checker.Violated, checker.Unknown},
		"controller-clock-jump": {checker.Violated, checker.Unknown},
		"renew-near-grace":      {checker.Violated, checker.Unknown},
		"node-partitioned":      {checker.OK, checker.OK},
	},
	true: {
		"node-clock-step-back":  {checker.OK, checker.Unknown},
		"controller-clock-jump": {checker.OK, checker.Unknown},
		"renew-near-grace":      {checker.OK, checker.Unknown},
		"node-partitioned":      {checker.OK, checker.Violated},
	},
}

// TestScenarios runs every story on seeds 1-2, verified (run twice).
func TestScenarios(t *testing.T) {
	for _, noGrace := range []bool{false, true} {
		scs := nodelease.Scenarios()
		if noGrace {
			scs = nodelease.NoGraceCheckScenarios()
		}
		require.Len(t, scs, len(expected[noGrace]))
		for _, sc := range scs {
			want, ok := expected[noGrace][sc.Name]
			require.True(t, ok, "no expectation for %s (no-grace-check %v)", sc.Name, noGrace)
			t.Run(fmt.Sprintf("%s/no-grace-check=%v", sc.Name, noGrace), func(t *testing.T) {
				for seed := uint64(1); seed <= 2; seed++ {
					out := executeOrFail(t, sc, seed, scenarios.Options{T: t, Verify: true})
					require.NoError(t, out.Goroutine.Err(), "seed %d", seed)
					assert.Equal(t, history.Verified, out.Goroutine.Level.Determinism, "seed %d", seed)
					assert.Equal(t, want, verdicts{out.Verdict("P7"), out.Verdict("P8")}, "seed %d: %+v", seed, out.Checks)
					assert.Equal(t, checker.OK, out.Verdict("premise"), "seed %d premises: %+v", seed, out.History.Premises)
					assert.Equal(t, checker.OK, out.Verdict("P3"), "seed %d: the API server's Leases are linearizable", seed)
				}
			})
		}
	}
}
