package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// Every catalogue scenario that tells a story (a scripted fault or a
// workload of its own) states its premise, and for the correct
// implementation on the first seeds the story happens. A run that is only
// a nemesis's random mix (swarm) tells no story: it states no premise, and
// reports what it exercised as coverage.
func TestCatalogPremisesHold(t *testing.T) {
	for _, sc := range scenarios.CatalogFor(lease.Correct()) {
		t.Run(sc.Name, func(t *testing.T) {
			if randomOnly(sc) {
				assert.Empty(t, sc.Premises, "a random run is not a story: no premise")
				out, err := scenarios.Execute(sc, 1, scenarios.Options{})
				require.NoError(t, err)
				for _, r := range out.Checks {
					assert.NotEqual(t, checker.PropertyPremise, r.Property, "no premise verdict")
				}
				return
			}
			require.NotEmpty(t, sc.Premises, "a catalogue scenario must state its premise")
			for seed := uint64(1); seed <= 3; seed++ {
				out, err := scenarios.Execute(sc, seed, scenarios.Options{})
				require.NoError(t, err)
				p := findCheck(t, out, checker.PropertyPremise)
				assert.Equal(t, checker.OK, p.Status, "seed %d: %s", seed, p.Summary)
			}
		})
	}
}

// An implementation that never reaches the armed failpoint makes the
// Kleppmann story vacuous: the run is unknown, naming the failpoint, and the
// unfenced mutant that the story catches is no longer reported ok.
func TestFailpointNeverReachedIsUnknown(t *testing.T) {
	bypass := func(impl lease.Impl) lease.Impl {
		inner := impl.NewHolder
		impl.Name += "+no-failpoints"
		impl.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
			env.Failpoint = func(_ string, then func()) { then() } // never tells the harness
			return inner(env, cfg, grantor, resource)
		}
		return impl
	}
	sc, err := scenarios.Lookup("kleppmann-gc-pause")
	require.NoError(t, err)
	unfenced, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	for _, impl := range []lease.Impl{lease.Correct(), unfenced} {
		t.Run(impl.Name, func(t *testing.T) {
			out, err := scenarios.Execute(sc, 1, scenarios.Options{Impl: bypass(impl)})
			require.NoError(t, err)
			p := findCheck(t, out, checker.PropertyPremise)
			assert.Equal(t, checker.Unknown, p.Status)
			assert.Contains(t, p.Summary, "before-write")
			assert.Contains(t, p.Summary, "never reached")
		})
	}
}

// randomOnly reports whether sc is only a nemesis's random mix: no
// scripted fault, and the catalogue's plain lock-and-task load. Stories of
// a workload of their own (the herd, the registry) keep their premises.
func randomOnly(sc scenarios.Scenario) bool {
	return sc.Nemesis != nil && len(sc.Faults.Events) == 0 && sc.Name == "swarm"
}
