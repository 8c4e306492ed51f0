package etcdraft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// The tests of the core module that need a replicated lease store. They
// lived in the core's scenarios package until the core stopped importing
// the zoo (docs/decisions/0041); they run here, unchanged in what they
// assert.

// replicatedSeeds is how many seeds each replicated-store scenario runs,
// as many as scenarios' TestCatalog gives every other scenario.
const replicatedSeeds = 20

// TestReplicatedCatalog runs every catalogue scenario that needs a
// replicated store (which leasesim's correct implementation is not), as
// scenarios' TestCatalog runs the others: every property must hold. It
// fails if the catalogue has none, so that a rename cannot empty it.
func TestReplicatedCatalog(t *testing.T) {
	var ran int
	for _, sc := range scenarios.Catalog() {
		if scenarios.Supports(sc, lease.Correct()) == nil {
			continue // scenarios' TestCatalog runs it
		}
		ran++
		t.Run(sc.Name, func(t *testing.T) {
			require.NoError(t, scenarios.Supports(sc, Impl()))
			scenarios.Run(t, sc, scenarios.Seeds(1, replicatedSeeds), scenarios.Parallel(), scenarios.WithImpl(Impl()))
		})
	}
	assert.Equal(t, 8, ran, "the replicated-store scenarios (leader-partition-minority, leader-partition-majority, "+
		"leader-stall, rolling-restart, leader-change-load, member-drift, member-drift-beyond, leader-churn)")
}

// silenced is impl with its holders' observer removed: they report no
// beliefs, though they are granted the lease and write under it. It is the
// wrapper of scenarios' silent_holder_test.go, which a test in another
// module cannot import.
func silenced(impl lease.Impl) lease.Impl {
	inner := impl.NewHolder
	impl.Name += "+silent"
	impl.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
		env.Observer = nil
		return inner(env, cfg, grantor, resource)
	}
	return impl
}

// TestSilentHolderMakesP1Unknown is scenarios' test of the same name for
// this store: a holder with its observer removed reports no beliefs, so P1
// is unknown, naming the holder, never ok; its writes are never a P2
// violation; with its observer the same holder is judged ok.
func TestSilentHolderMakesP1Unknown(t *testing.T) {
	for _, name := range []string{"kleppmann-gc-pause", "partition-heal", "swarm"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.Lookup(name)
			require.NoError(t, err)
			out, err := scenarios.Execute(sc, 1, scenarios.Options{Impl: silenced(Impl())})
			require.NoError(t, err)
			p1, p2 := verdict(t, out, "P1"), verdict(t, out, "P2")
			assert.Equal(t, checker.Unknown, p1.Status, p1.Summary)
			assert.Contains(t, p1.Summary, "reported no belief")
			assert.False(t, p1.AssumptionOnly(), "no data is not an exceeded assumption")
			assert.NotEqual(t, checker.Violated, p2.Status, "a silent holder is no fencing violation: %s", p2.Summary)

			judged, err := scenarios.Execute(sc, 1, scenarios.Options{Impl: Impl()})
			require.NoError(t, err)
			assert.Equal(t, checker.OK, judged.Verdict("P1"), "with its observer the same holder is judged")
		})
	}
}

// verdict returns the verdict on property prop in out, failing the test if
// there is none.
func verdict(t *testing.T, out *scenarios.Outcome, prop string) checker.Result {
	t.Helper()
	for _, r := range out.Checks {
		if r.Property == prop {
			return r
		}
	}
	t.Fatalf("no %s verdict", prop)
	return checker.Result{}
}
