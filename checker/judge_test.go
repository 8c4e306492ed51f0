package checker_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// TestJudgeIsCheckMeasureCover: Judge, which shares work between the
// checkers, returns what Check, Measure and Cover return on their own, for
// the correct implementation and a mutant that violates P5.
func TestJudgeIsCheckMeasureCover(t *testing.T) {
	mutant, err := mutants.Lookup("mutant/unfenced-checkpoint")
	require.NoError(t, err)
	for _, impl := range []lease.Impl{lease.Correct(), mutant} {
		for _, name := range []string{"swarm", "worker-crash-handoff", "kleppmann-gc-pause"} {
			t.Run(fmt.Sprintf("%s/%s", impl.Name, name), func(t *testing.T) {
				sc, err := scenarios.Lookup(name)
				require.NoError(t, err)
				out, err := scenarios.Execute(sc, 2, scenarios.Options{Impl: impl, Check: checker.Options{Skip: true}})
				require.NoError(t, err)
				h := out.History
				require.NotZero(t, h.NumOps())
				for _, opts := range []checker.Options{{}, {Skip: true}} {
					want := checker.Judgement{Checks: checker.Check(h, opts), Metrics: checker.Measure(h)}
					if !opts.Skip {
						want.Coverage = checker.Cover(h)
					}
					require.Equal(t, want, checker.Judge(h, opts))
				}
			})
		}
	}
}
