package nodelease_test

import (
	"testing"
	"time"

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
// check, and the kubelet's two other clients (their other stories are
// the default's: they change nothing there but the protocol). A story
// without a stop has nothing for P8 to judge (unknown). The stalled
// connection never violates P7, even where node-1 is declared dead for
// good (no-conn-reset): node-1 does not renew, so the controller's
// verdict is not false by P7's rules (TestStalledConnection).
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
	"k8s/nodelease/disable-http2": {
		"node-partitioned":        {checker.OK, checker.OK},
		"node-connection-stalled": {checker.OK, checker.Unknown},
	},
}

// TestScenarios runs every story expected names on seeds 1-2, verified
// (run twice); the default impl and no-grace-check must name all.
func TestScenarios(t *testing.T) {
	for _, sc := range allScenarios() {
		want, ok := expected[sc.impl][sc.Name]
		if !ok {
			require.NotContains(t, []string{"k8s/nodelease", "k8s/nodelease/no-grace-check"}, sc.impl,
				"no expectation for %s", sc.Name)
			continue
		}
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

// TestStalledConnection measures node-connection-stalled (node-1's
// connection stalls at 30 s) for each kubelet client, seeds 1-2: how long
// after its last renewal before the stall node-1 renews again, and what
// the controller declares. Today's kubelet (HTTP/2) gets off the
// connection by client-go's health check, 30 s without a frame read plus
// a 15 s unanswered PING after its last renewal: 45 s, within the 50 s
// grace period, never suspected. With DISABLE_HTTP2 the timed-out request
// closes its HTTP/1.1 connection and the retry renews some 20 s after.
// Without either (no-conn-reset) node-1 never renews again and is
// declared dead some 55 s after its last renewal, for the rest of the run.
func TestStalledConnection(t *testing.T) {
	const stall = history.Time(30 * time.Second)
	for _, tt := range []struct {
		impl     string
		variant  nodelease.Variant
		min, max time.Duration // the gap between node-1's renewals around the stall
		dead     bool          // node-1 declared dead, and not alive again
	}{
		{"k8s/nodelease", nodelease.Variant{}, 45 * time.Second, 46 * time.Second, false},
		{"k8s/nodelease/disable-http2", nodelease.Variant{Recovery: nodelease.CloseAll}, 20 * time.Second, 21 * time.Second, false},
		{"k8s/nodelease/no-conn-reset", nodelease.Variant{Recovery: nodelease.NoRecovery}, 0, 0, true},
	} {
		t.Run(tt.impl, func(t *testing.T) {
			for seed := uint64(1); seed <= 2; seed++ {
				out := executeOrFail(t, nodelease.NodeConnectionStalled(tt.variant), seed, scenarios.Options{T: t})
				require.NoError(t, out.Goroutine.Err())
				require.Equal(t, checker.OK, out.Verdict("premise"), "seed %d: %+v", seed, out.History.Premises)
				before, after := nodelease.RenewalsAround(out.History, "node-1", stall)
				var declared []bool
				for _, d := range out.History.Declarations {
					if d.Member == "node-1" {
						declared = append(declared, d.Dead)
					}
				}
				if tt.dead {
					assert.Equal(t, history.Never, after, "seed %d: node-1 renewed again at %v", seed, after)
					assert.Equal(t, []bool{true}, declared, "seed %d: declared dead once, never alive again", seed)
					continue
				}
				gap := after.Sub(before)
				assert.True(t, gap >= tt.min && gap <= tt.max, "seed %d: renewed at %v and %v, %v apart", seed, before, after, gap)
				assert.Empty(t, declared, "seed %d: never suspected", seed)
			}
		})
	}
}
