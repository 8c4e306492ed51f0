package checker

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// firstEffects finds each effect's first of the same resource and id, as a
// map of keys would, on random effects (keys that run together, "ab"+"c"
// and "a"+"bc", are different keys).
func TestFirstEffects(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 4))
	names := []string{"", "a", "b", "ab", "c", "bc", "t1/u1", "t1/u10"}
	for range 300 {
		effects := make([]history.SideEffect, r.IntN(200))
		want := make([]int32, len(effects))
		firsts := map[[2]string]int32{}
		for i := range effects {
			e := history.SideEffect{Resource: names[r.IntN(len(names))], ID: names[r.IntN(len(names))]}
			effects[i] = e
			k := [2]string{e.Resource, e.ID}
			if _, ok := firsts[k]; !ok {
				firsts[k] = int32(i)
			}
			want[i] = firsts[k]
		}
		require.Equal(t, want, firstEffects(effects))
	}
}
