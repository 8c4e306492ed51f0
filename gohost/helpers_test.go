package gohost_test

import (
	"testing"
	"time"

	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
	"github.com/stretchr/testify/require"
)

// gohostPareto is a heavy-tailed latency, so that seeds differ visibly.
var gohostPareto = sim.ParetoDist(500*time.Microsecond, 50*time.Millisecond, 1.5)

func fixed(d time.Duration) sim.Dist { return sim.FixedDist(d) }

// executeOrFail runs sc for seed through the one scenario API and fails t
// if the run could not be made.
func executeOrFail(t *testing.T, sc scenarios.Scenario, seed uint64, opts scenarios.Options) *scenarios.Outcome {
	out, err := scenarios.Execute(sc, seed, opts)
	require.NoError(t, err, "%s seed %d", sc.Name, seed)
	return out
}
