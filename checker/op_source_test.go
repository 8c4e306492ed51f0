package checker_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// decodingSource gives operations as a producer that decodes its own
// records does: each Load overwrites the caller's variable, so a checker
// that kept a pointer to the variable it loads into, rather than what it
// needs of the operation, would read a later operation through it.
type decodingSource struct{ ops []history.Operation }

func (s *decodingSource) Len() int { return len(s.ops) }

func (s *decodingSource) Load(i int, op *history.Operation) { *op = s.ops[i] }

// TestChecksReadAnOpSource: the checkers judge a history whose operations
// a source gives, one copy at a time, exactly as they judge the same
// history holding its operations (and as the run gave them), violations,
// evidence and P3's visualisation included, for the correct implementation
// and every mutant.
func TestChecksReadAnOpSource(t *testing.T) {
	impls := append([]lease.Impl{lease.Correct()}, mutants.All()...)
	names := []string{"swarm", "worker-crash-handoff", "kleppmann-gc-pause", "service-registry", "grantor-restart",
		"message-chaos"}
	violated := make(map[string]bool) // property -> seen violated
	for _, impl := range impls {
		for _, name := range names {
			t.Run(fmt.Sprintf("%s/%s", impl.Name, name), func(t *testing.T) {
				sc, err := scenarios.Lookup(name)
				require.NoError(t, err)
				out, err := scenarios.Execute(sc, 3, scenarios.Options{Impl: impl, Check: checker.Options{Skip: true}})
				require.NoError(t, err)
				require.NotZero(t, out.History.NumOps())
				held, given := *out.History, *out.History
				held.SetOps(out.History.CopyOps())
				given.SetOpSource(&decodingSource{ops: out.History.CopyOps()})
				opts := checker.Options{Visualize: true}
				want := checker.Judge(&held, opts)
				require.Equal(t, want, checker.Judge(&given, opts), "through a source")
				require.Equal(t, want, checker.Judge(out.History, opts), "as the run gave them")
				for _, r := range want.Checks {
					if r.Status == checker.Violated {
						violated[r.Property] = true
					}
				}
			})
		}
	}
	props := slices.Sorted(maps.Keys(violated))
	t.Logf("violated across the runs: %v", props)
	for _, p := range []string{"P1", "P2", "P3", "P5"} {
		assert.Contains(t, props, p, "a violation of %s, with its evidence, read through the source", p)
	}
}
