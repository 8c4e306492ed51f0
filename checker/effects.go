package checker

import "github.com/leasesim/leasesim/history"

// firstEffects returns, for each side effect, the index of the first
// effect with its resource and id (its own index if it is the first): a
// repeat is an effect whose first is another. It finds them through an
// open-addressing table of indices, not a map of keys: a run has one effect
// per unit of work, and the three checkers that count repeats each built a
// map of them all, the largest allocation of checking a swarm run.
func firstEffects(effects []history.SideEffect) []int32 {
	first := make([]int32, len(effects))
	size := 64
	for size < 2*len(effects) {
		size *= 2
	}
	slots := make([]int32, size) // 1 + the index of a key's first effect; 0 is an empty slot
	for i := range effects {
		e := &effects[i]
		for s := int(effectHash(e)) & (size - 1); ; s = (s + 1) & (size - 1) {
			j := slots[s] - 1
			if j < 0 {
				slots[s], first[i] = int32(i)+1, int32(i)
				break
			}
			if f := &effects[j]; f.Resource == e.Resource && f.ID == e.ID {
				first[i] = j
				break
			}
		}
	}
	return first
}

// effectHash hashes an effect's resource and id (FNV-1a, with the
// resource's length between them).
func effectHash(e *history.SideEffect) uint64 {
	h := uint64(14695981039346656037)
	for _, s := range [2]string{e.Resource, e.ID} {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
		h = (h ^ uint64(len(s))) * 1099511628211
	}
	return h ^ h>>32
}
