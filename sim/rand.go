package sim

import "math/rand/v2"

// DerivedSeed records the PRNG seed a component received, so a run's log
// starts with every random parameter that shapes it.
type DerivedSeed struct {
	Component string `json:"component"`
	Seed      uint64 `json:"seed"`
}

// deriveSeed mixes the root seed with a component name. Each component gets a
// stream that does not depend on which other components exist, so adding a
// node or a fault does not perturb the others.
func deriveSeed(root uint64, component string) uint64 {
	return splitmix64(root ^ fnv64(component))
}

// fnv64 is FNV-1a over a string.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// splitmix64 is the finaliser of SplitMix64, a strong 64-bit mixer.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// newRand returns a PCG stream for a derived seed.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, splitmix64(seed)))
}

// seedPCG seeds p with the PCG stream newRand would return for seed.
func seedPCG(p *rand.PCG, seed uint64) { p.Seed(seed, splitmix64(seed)) }
