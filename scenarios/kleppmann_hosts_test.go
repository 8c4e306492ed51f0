package scenarios_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/examples/ttllock"
	"github.com/leasesim/leasesim/scenarios"
)

// The Kleppmann story gives the same verdicts on the event host (leasesim's
// own protocol) and on goroutine code (a TTL lock written with net.Conn and
// time): an action counts at the holder's decision on both, so the pause
// between deciding and writing is fencing's to catch (P2 holds: the stale
// write is refused), and exclusivity holds (P1: h1 stopped believing at its
// deadline). The premises held on both.
func TestKleppmannSameVerdictsOnEveryHost(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			event, err := scenarios.Execute(scenarios.KleppmannGCPause(), seed, scenarios.Options{})
			require.NoError(t, err)
			goroutine, err := scenarios.Execute(ttllock.Kleppmann(), seed, scenarios.Options{T: t, Verify: true})
			require.NoError(t, err)
			require.NoError(t, goroutine.Err())
			assert.Equal(t, scenarios.HostEvent, event.Host)
			assert.Equal(t, scenarios.HostGoroutine, goroutine.Host)
			for _, p := range []string{"P1", "P2", "premise"} {
				assert.Equal(t, checker.OK, event.Verdict(p), "event host %s", p)
				assert.Equal(t, event.Verdict(p), goroutine.Verdict(p), "%s: goroutine code against the event host", p)
			}
			assert.True(t, fencedStaleWrite(goroutine), "h1's stale write reached the store and was refused")
		})
	}
}

// fencedStaleWrite reports whether the store refused a write of h1's.
func fencedStaleWrite(out *scenarios.Outcome) bool {
	for _, op := range out.History.AllOps() {
		if op.Server == ttllock.StoreNode && op.Client == "h1" && op.Output.Err != "" {
			return true
		}
	}
	return false
}

// Execute refuses a goroutine-host scenario outside a test, naming why.
func TestGoroutineScenarioNeedsATest(t *testing.T) {
	_, err := scenarios.Execute(ttllock.Kleppmann(), 1, scenarios.Options{})
	require.ErrorIs(t, err, scenarios.ErrNeedsTest)
}
