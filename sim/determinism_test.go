package sim_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// determinismSeeds is how many seeds TestDeterminism runs: 200, or 20
// under -short, which make test's run under the race detector uses (the
// concurrent runs need a few seeds to race, not two hundred; the run
// without it covers them all).
func determinismSeeds() int {
	if testing.Short() {
		return 20
	}
	return 200
}

// runDemo runs the demo world for seed to its end and returns its result.
func runDemo(t testing.TB, seed uint64) sim.Result {
	w := newDemoWorld(seed, sim.TraceConfig{})
	res := w.RunFor(demoDuration)
	if res.Err != nil {
		t.Errorf("seed %d: %v", seed, res.Err)
	}
	return res
}

// TestDeterminism runs the demo world, under randomly drawn faults of every
// kind, for determinismSeeds seeds: twice in sequence, then all seeds at once
// on goroutines under GOMAXPROCS 1 and 2. Every run of a seed must give the
// same trace hash, and different seeds different hashes.
func TestDeterminism(t *testing.T) {
	seeds := determinismSeeds()
	want := make([]uint64, seeds)
	seen := make(map[uint64]uint64, seeds)
	for seed := range uint64(seeds) {
		first, second := runDemo(t, seed), runDemo(t, seed)
		require.Equal(t, first.TraceHashString(), second.TraceHashString(), "seed %d: two runs differ", seed)
		require.Equal(t, first.Events, second.Events, "seed %d", seed)
		require.Greater(t, first.Events, uint64(500), "seed %d: the demo world should be busy", seed)
		if other, dup := seen[first.TraceHash]; dup {
			t.Fatalf("seeds %d and %d give the same trace hash %s", other, seed, first.TraceHashString())
		}
		seen[first.TraceHash] = seed
		want[seed] = first.TraceHash
	}

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		got := make([]uint64, seeds)
		var wg sync.WaitGroup
		for seed := range uint64(seeds) {
			wg.Go(func() { got[seed] = runDemo(t, seed).TraceHash })
		}
		wg.Wait()
		assert.Equal(t, want, got, "GOMAXPROCS=%d: concurrent runs differ from sequential ones", procs)
	}
}

// TestDemoWorldExercisesEveryFault guards the determinism test against a
// demo world that quietly stopped injecting some kind of fault.
func TestDemoWorldExercisesEveryFault(t *testing.T) {
	kinds := make(map[sim.FaultKind]int)
	for seed := range uint64(20) {
		w := newDemoWorld(seed, sim.TraceConfig{})
		require.NoError(t, w.RunFor(demoDuration).Err)
		for _, f := range w.Faults() {
			kinds[f.Kind]++
		}
	}
	for k := sim.FaultPartition; k <= sim.FaultFailpointHit; k++ {
		assert.Positive(t, kinds[k], "no %s fault in 20 seeds", k)
	}
}
