package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/zoo/k8slease"
	"github.com/leasesim/leasesim/zoo/redislock"
)

// silenced is impl with its holders' observer removed: they report no
// beliefs, though they are granted the lease and write under it.
func silenced(impl lease.Impl) lease.Impl {
	inner := impl.NewHolder
	impl.Name += "+silent"
	impl.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
		env.Observer = nil
		return inner(env, cfg, grantor, resource)
	}
	return impl
}

// A holder with its observer removed reports no beliefs. P1 then has
// nothing to judge, and says so: unknown, naming the holder, never ok. The
// grant is read from each spec's own success replies (leasesim's acquire,
// the expiring key's SET NX, the record's create or update, the lessor's
// create attached to a granted lease), and the silent holder's writes are
// never a P2 violation: whether it held its token cannot be judged.
func TestSilentHolderMakesP1Unknown(t *testing.T) {
	impls := []lease.Impl{lease.Correct(), redislock.Impl(), k8slease.Impl()} // zoo/etcdraft: its module's TestSilentHolderMakesP1Unknown
	stories := []string{"kleppmann-gc-pause", "partition-heal", "swarm"}
	for _, impl := range impls {
		for _, name := range stories {
			t.Run(impl.Name+"/"+name, func(t *testing.T) {
				sc, err := scenarios.Lookup(name)
				require.NoError(t, err)
				out, err := scenarios.Execute(sc, 1, scenarios.Options{Impl: silenced(impl)})
				require.NoError(t, err)
				p1 := findCheck(t, out, "P1")
				assert.Equal(t, checker.Unknown, p1.Status, p1.Summary)
				assert.Contains(t, p1.Summary, "reported no belief")
				assert.False(t, p1.AssumptionOnly(), "no data is not an exceeded assumption")
				p2 := findCheck(t, out, "P2")
				assert.NotEqual(t, checker.Violated, p2.Status, "a silent holder is no fencing violation: %s", p2.Summary)
				if impl.Spec != "" { // leasesim's protocol judges writes by its acquire replies, beliefs or not
					assert.NotEqual(t, checker.OK, p2.Status, "writes by a silent holder cannot all be judged: %s", p2.Summary)
				}

				correct, err := scenarios.Execute(sc, 1, scenarios.Options{Impl: impl})
				require.NoError(t, err)
				assert.Equal(t, checker.OK, findCheck(t, correct, "P1").Status, "with its observer the same holder is judged")
			})
		}
	}
}

func findCheck(t *testing.T, out *scenarios.Outcome, property string) checker.Result {
	t.Helper()
	for _, r := range out.Checks {
		if r.Property == property {
			return r
		}
	}
	t.Fatalf("no %s verdict", property)
	return checker.Result{}
}
