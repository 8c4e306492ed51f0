package mutants

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/scenarios"
)

// pathSeeds is how many seeds TestPathMutantsNeedTheirPath runs where
// the path is missing.
const pathSeeds = 10

// The mutants of the keyed read-back path are caught only on it. With the
// path taken away from multi-key-read-back (one key per lease for
// per-key-fencing, no reads for read-sees-refused-write) the same seeds
// catch nothing, and neither do the single-key, write-only stories of the
// catalogue: their bugs are on no other path. (The swarm draws the path on
// some seeds: TestSwarmDrawsTheKeyedPaths.)
func TestPathMutantsNeedTheirPath(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simulations")
	}
	writeOnly := []string{"kleppmann-gc-pause", "message-chaos", "thundering-herd"}
	for _, tc := range []struct {
		mutant  string
		without string
		remove  func(*scenarios.Scenario)
	}{
		{"per-key-fencing", "one key per lease", func(sc *scenarios.Scenario) { sc.Lock.Keys = 1 }},
		{"read-sees-refused-write", "no reads", func(sc *scenarios.Scenario) { sc.Lock.ReadBack = false }},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			t.Parallel()
			m := mustLookup(t, tc.mutant)
			c := catchCaseOf(t, tc.mutant)
			path := lookupAll(t, []string{"multi-key-read-back"})
			caught := hunt(t, m, c, path, pathSeeds)
			require.NotNil(t, caught, "%s: multi-key-read-back catches it in seeds 1-%d", m.Name, pathSeeds)
			without := path[0]
			tc.remove(&without)
			check := checker.Options{LinearizabilitySteps: *catchP3Steps}
			for seed := uint64(1); seed <= pathSeeds; seed++ {
				out, err := scenarios.Execute(without, seed, scenarios.Options{Impl: m, Check: check})
				require.NoError(t, err)
				require.Empty(t, out.Violated(), "%s caught with %s, seed %d", m.Name, tc.without, seed)
			}
			for _, sc := range lookupAll(t, writeOnly) {
				for seed := uint64(1); seed <= 3; seed++ {
					out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: m, Check: check})
					require.NoError(t, err)
					require.Empty(t, out.Violated(), "%s caught by %s seed %d", m.Name, sc.Name, seed)
				}
			}
			t.Logf("%s: caught at seed %d of multi-key-read-back; not with %s (seeds 1-%d), nor by %v (seeds 1-3)",
				m.Name, caught.out.Seed, tc.without, pathSeeds, writeOnly)
		})
	}
}

// catchCaseOf returns the catch table's case of mutant.
func catchCaseOf(t *testing.T, mutant string) catchCase {
	t.Helper()
	for _, c := range catchTable {
		if c.mutant == mutant {
			return c
		}
	}
	t.Fatalf("%s is not in the catch table", mutant)
	return catchCase{}
}

// swarmPathSeeds is how many swarm seeds TestSwarmDrawsTheKeyedPaths may
// run for each mutant.
const swarmPathSeeds = 40

// The swarm draws the keyed paths on some seeds (scenarios.LockLoad.Drawn),
// so it catches both mutants of those paths too: per-key-fencing on a seed
// whose holders write several keys blind, read-sees-refused-write on one
// whose holders read back.
func TestSwarmDrawsTheKeyedPaths(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simulations")
	}
	for _, name := range []string{"per-key-fencing", "read-sees-refused-write"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := mustLookup(t, name)
			caught := hunt(t, m, catchCaseOf(t, name), lookupAll(t, []string{"swarm"}), swarmPathSeeds)
			require.NotNil(t, caught, "%s: swarm catches it in seeds 1-%d", m.Name, swarmPathSeeds)
			t.Logf("%s", caught)
		})
	}
}
