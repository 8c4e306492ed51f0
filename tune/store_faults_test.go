package tune

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sweep"
)

// leaderFailover is one configuration on examples/leader-failover.jsonl,
// whose leader pauses coincide with worker crashes.
func leaderFailover(impl lease.Impl) Config {
	return Config{
		Workload: examplePath("leader-failover"), Impl: impl,
		TTLs: []time.Duration{2 * time.Second}, Renews: []Renew{{Divisor: 3}}, Checkpoints: []Checkpoint{{EveryUnits: 5}},
		Rho: DefaultRho, Margin: DefaultMargin, Seeds: sweep.Seeds{First: 1, Last: 1},
	}
}

// A workload's leader pause pauses the grantor of a store of one, and
// stays a role for a replicated store, to be resolved when it acts.
func TestWorkloadLeaderPauseForTheStore(t *testing.T) {
	nodes := func(impl lease.Impl) map[string]int {
		one, err := OneConfig(leaderFailover(impl))
		require.NoError(t, err)
		count := map[string]int{}
		for _, e := range one.Scenario.Faults.Events {
			if e.Kind == faults.KindPause {
				count[e.Node]++
			}
		}
		return count
	}
	assert.Equal(t, map[string]int{"grantor": 9}, nodes(lease.Correct()))
	three := lease.Correct()
	three.Members = 3
	assert.Equal(t, map[string]int{faults.RoleLeader: 9}, nodes(three))
}

// On leasesim's one grantor, paused for 6 s as each worker crashes, a
// failover lasts the pause: the crashed holder's 2 s lease has run out by
// the time the grantor resumes and grants it to another worker.
func TestWorkloadLeaderPauseFailoverIsThePause(t *testing.T) {
	res, err := Run(context.Background(), leaderFailover(lease.Correct()), nil)
	require.NoError(t, err)
	require.Zero(t, res.ViolatingRuns)
	m := res.Configs[0].Metrics
	require.Positive(t, m.Failovers)
	assert.InDelta(t, 6*time.Second, m.FailoverMean, float64(50*time.Millisecond))
	assert.InDelta(t, 6*time.Second, m.FailoverP99, float64(100*time.Millisecond))
}
