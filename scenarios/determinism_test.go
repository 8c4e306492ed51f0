package scenarios_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// hashes runs every catalog scenario on seeds 1..n, each seed on its own
// goroutine, and returns the trace hashes in (scenario, seed) order.
func hashes(t *testing.T, n int, opts scenarios.Options) []uint64 {
	t.Helper()
	catalog := scenarios.CatalogFor(lease.Correct())
	out := make([]uint64, len(catalog)*n)
	var wg sync.WaitGroup
	for i, sc := range catalog {
		for seed := range n {
			wg.Go(func() {
				o, err := scenarios.Execute(sc, uint64(seed+1), opts)
				if !assert.NoError(t, err) {
					return
				}
				out[i*n+seed] = o.Sim.TraceHash
			})
		}
	}
	wg.Wait()
	return out
}

// Same scenario and seed, same trace hash: whatever GOMAXPROCS, however many
// seeds run at once, and whether the checkers run or not.
func TestDeterminism(t *testing.T) {
	const n = 5
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	one := hashes(t, n, scenarios.Options{})
	runtime.GOMAXPROCS(2)
	two := hashes(t, n, scenarios.Options{})
	unchecked := hashes(t, n, scenarios.Options{Check: checker.Options{Skip: true}})
	require.Equal(t, one, two, "GOMAXPROCS must not change a run")
	require.Equal(t, one, unchecked, "checking must not change a run")

	seen := make(map[uint64]int)
	for i, h := range one {
		if j, dup := seen[h]; dup {
			t.Errorf("runs %d and %d have the same trace hash %016x", j, i, h)
		}
		seen[h] = i
	}
}
