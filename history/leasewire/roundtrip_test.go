package leasewire_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// verdict is what a property says, compared across the round trip.
type verdict struct {
	Property, Name string
	Status         checker.Status
	Summary        string
}

func verdicts(rs []checker.Result) []verdict {
	out := make([]verdict, len(rs))
	for i, r := range rs {
		out[i] = verdict{r.Property, r.Name, r.Status, r.Summary}
	}
	return out
}

// TestRoundTripKeepsEveryVerdict runs every catalogue scenario in process
// (seeds 1-2, the correct implementation; and every mutant on
// kleppmann-gc-pause seed 1, where unfenced-resource is caught), exports the history, imports it, and checks that
// the checkers say exactly what they said in process, that the imported
// history is the in-process one up to what the schema does not carry, and
// that exporting it again gives the same bytes.
func TestRoundTripKeepsEveryVerdict(t *testing.T) {
	unfenced, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	type run struct {
		sc   scenarios.Scenario
		impl lease.Impl
		seed uint64
	}
	var runs []run
	for _, sc := range scenarios.CatalogFor(lease.Correct()) {
		for seed := uint64(1); seed <= 2; seed++ {
			if testing.Short() && seed > 1 {
				continue
			}
			runs = append(runs, run{sc, lease.Correct(), seed})
		}
	}
	kleppmann, err := scenarios.Lookup("kleppmann-gc-pause")
	require.NoError(t, err)
	for _, m := range mutants.All() { // every mutant, caught there or not: the verdicts must survive either way
		runs = append(runs, run{kleppmann, m, 1})
	}
	caught := false
	for _, r := range runs {
		t.Run(fmt.Sprintf("%s/%s/seed=%d", r.sc.Name, r.impl.Name, r.seed), func(t *testing.T) {
			out, err := scenarios.Execute(r.sc, r.seed, scenarios.Options{Impl: r.impl})
			require.NoError(t, err)
			want := verdicts(out.Checks)
			require.NotEmpty(t, want, "the run was checked")

			var file bytes.Buffer
			require.NoError(t, leasewire.WriteHistory(&file, out.History,
				leasewire.Meta{Scenario: r.sc.Name, Seed: r.seed}))
			h, meta, err := leasewire.ReadHistory(bytes.NewReader(file.Bytes()), "history.jsonl")
			require.NoError(t, err)
			assert.Equal(t, r.sc.Name, meta.Scenario)
			assert.Equal(t, history.Exact, meta.Determinism)

			assert.Equal(t, comparable(out.History), comparable(h), "the imported history is the in-process one")
			assert.Equal(t, want, verdicts(checker.Check(h, checker.Options{})), "the verdicts survive the file")
			assert.Equal(t, checker.Measure(out.History), checker.Measure(h), "the metrics survive the file")

			var again bytes.Buffer
			require.NoError(t, leasewire.WriteHistory(&again, h, meta))
			assert.Equal(t, file.String(), again.String(), "re-export is byte-identical")
			if r.impl.Name == unfenced.Name {
				for _, v := range want {
					caught = caught || v.Status == checker.Violated
				}
			}
		})
	}
	assert.True(t, caught, "the mutant is caught, so the round trip carries a violation")
}

// comparable returns h as the file carries it: the in-process history
// holds the records the file holds, so nothing is left out; its
// operations are held in a slice (CopyOps), whether h holds them or an
// OpSource gives them.
func comparable(h *history.History) *history.History {
	c := *h
	c.SetOps(h.CopyOps())
	return &c
}
