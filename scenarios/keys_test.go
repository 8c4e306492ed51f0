package scenarios_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/scenarios"
)

// multi-key-read-back reaches the behaviours of a lease over several keys,
// read back: a stale write at a key the later token had not written, and
// a read of a key whose latest write was refused. Neither is reachable
// with one key written blind, so its single-key, write-only form reaches
// neither on the same seeds.
func TestMultiKeyReadBackReachesItsPaths(t *testing.T) {
	paths := []string{"stale-write-untouched-key", "read-after-fenced-write"}
	sc := scenarios.MultiKeyReadBack()
	blind := scenarios.MultiKeyReadBack()
	blind.Lock.Keys, blind.Lock.ReadBack = 1, false
	reached := func(sc scenarios.Scenario) []string {
		var all []string
		for seed := uint64(1); seed <= 10; seed++ {
			out, err := scenarios.Execute(sc, seed, scenarios.Options{})
			require.NoError(t, err)
			require.Empty(t, out.Violated(), "seed %d", seed)
			for _, name := range out.Coverage.Reached() {
				if slices.Contains(paths, name) && !slices.Contains(all, name) {
					all = append(all, name)
				}
			}
		}
		slices.Sort(all)
		return all
	}
	assert.Equal(t, []string{"read-after-fenced-write", "stale-write-untouched-key"}, reached(sc))
	assert.Empty(t, reached(blind))
}
