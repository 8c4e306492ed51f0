package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// A correct holder with its observer removed reports no beliefs. P1 then
// has nothing to judge, and says so: unknown, naming the holder, never ok.
func TestSilentHolderMakesP1Unknown(t *testing.T) {
	silent := lease.Correct()
	silent.Name = "silent-holder"
	silent.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
		env.Observer = nil
		return lease.NewHolder(env, cfg, grantor, resource)
	}
	for _, name := range []string{"kleppmann-gc-pause", "partition-heal", "swarm"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.Lookup(name)
			require.NoError(t, err)
			out, err := scenarios.Execute(sc, 1, scenarios.Options{Impl: silent})
			require.NoError(t, err)
			p1 := findCheck(t, out, "P1")
			assert.Equal(t, checker.Unknown, p1.Status, p1.Summary)
			assert.Contains(t, p1.Summary, "reported no belief")

			correct, err := scenarios.Execute(sc, 1, scenarios.Options{})
			require.NoError(t, err)
			assert.Equal(t, checker.OK, findCheck(t, correct, "P1").Status, "with its observer the same holder is judged")
		})
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
