package sweep_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sweep"
)

func shardSummaries(t *testing.T, cfg sweep.Config, n int) []sweep.Summary {
	t.Helper()
	var parts []sweep.Summary
	for i := 1; i <= n; i++ {
		cfg.Shard = sweep.Shard{Index: i, Count: n}
		s, err := sweep.Run(context.Background(), cfg)
		require.NoError(t, err)
		parts = append(parts, s)
	}
	return parts
}

func TestMergeOfShardsIsTheWholeSweep(t *testing.T) {
	cfg := sweep.Config{Scenarios: fastScenarios(), Impl: flaky(), Seeds: sweep.Seeds{First: 3, Last: 22}, Parallel: 2}
	whole, err := sweep.Run(context.Background(), cfg)
	require.NoError(t, err)
	parts := shardSummaries(t, cfg, 3)

	merged, err := sweep.Merge(parts[2], parts[0], parts[1])
	require.NoError(t, err)
	assert.Equal(t, "1/1", merged.Shard)
	assert.Equal(t, 6, merged.Parallel)
	assert.InDelta(t, whole.SimSeconds, merged.SimSeconds, 1e-6)
	assert.Equal(t, stable(t, whole), stable(t, merged))
	assert.GreaterOrEqual(t, merged.WallSeconds, parts[0].WallSeconds)

	// Merged summaries merge again.
	twoOfThree, err := sweep.Merge(parts[0], parts[2])
	require.NoError(t, err)
	assert.Equal(t, "1,3/3", twoOfThree.Shard)
	again, err := sweep.Merge(twoOfThree, parts[1])
	require.NoError(t, err)
	assert.Equal(t, stable(t, whole), stable(t, again))
}

func TestMergeKeepsPartial(t *testing.T) {
	a := sweep.Summary{Schema: sweep.SummarySchema, Scenarios: []string{"x"}, Impl: "correct", Seeds: "1-10", Shard: "1/2", Runs: 5, RunsExpected: 5}
	b := a
	b.Shard, b.Partial, b.Runs = "2/2", true, 2
	got, err := sweep.Merge(a, b)
	require.NoError(t, err)
	assert.True(t, got.Partial)
	assert.Equal(t, 7, got.Runs)
	assert.Equal(t, 10, got.RunsExpected)
}

func TestMergeRejectsMismatches(t *testing.T) {
	base := sweep.Summary{Schema: sweep.SummarySchema, Scenarios: []string{"a", "b"}, Impl: "correct", Seeds: "1-100", Shard: "1/4"}
	with := func(change func(s *sweep.Summary)) sweep.Summary {
		s := base
		change(&s)
		return s
	}
	tests := []struct {
		name    string
		parts   []sweep.Summary
		wantErr string
	}{
		{"nothing", nil, "nothing to merge"},
		{"other scenarios", []sweep.Summary{base, with(func(s *sweep.Summary) { s.Scenarios = []string{"a"}; s.Shard = "2/4" })}, "part 2: scenarios [a] differ"},
		{"other impl", []sweep.Summary{base, with(func(s *sweep.Summary) { s.Impl = "mutant/x"; s.Shard = "2/4" })}, `part 2: impl "mutant/x" differs`},
		{"other knobs", []sweep.Summary{with(func(s *sweep.Summary) { s.Knobs = []string{"grace-period=10s"} }),
			with(func(s *sweep.Summary) { s.Knobs = []string{"grace-period=50s"}; s.Shard = "2/4" })},
			"part 2: knobs [grace-period=50s] differ from part 1's [grace-period=10s]"},
		{"knobs and their defaults", []sweep.Summary{base, with(func(s *sweep.Summary) { s.Knobs = []string{"grace-period=10s"}; s.Shard = "2/4" })},
			"part 2: knobs [grace-period=10s] differ from part 1's []"},
		{"other seeds", []sweep.Summary{base, with(func(s *sweep.Summary) { s.Seeds = "1-99"; s.Shard = "2/4" })}, "part 2: seeds 1-99 differ"},
		{"an old schema", []sweep.Summary{with(func(s *sweep.Summary) { s.Schema = 2 })}, `part 1: schema_version 2, want 3`},
		{"the same shard twice", []sweep.Summary{base, base}, "part 2: shard 1/4 is already merged"},
		{"overlapping merged shards", []sweep.Summary{with(func(s *sweep.Summary) { s.Shard = "1,2/4" }),
			with(func(s *sweep.Summary) { s.Shard = "3/4" }), with(func(s *sweep.Summary) { s.Shard = "2/4" })}, "part 3: shard 2/4 is already merged"},
		{"another shard count", []sweep.Summary{base, with(func(s *sweep.Summary) { s.Shard = "2/3" })}, "part 2: shard 2/3 is of 3 shards, not 4"},
		{"the whole and a part", []sweep.Summary{with(func(s *sweep.Summary) { s.Shard = "1/1" }), base}, "overlaps"},
		{"a malformed shard", []sweep.Summary{base, with(func(s *sweep.Summary) { s.Shard = "5/4" })}, `part 2: shard "5/4"`},
		{"a missing shard", []sweep.Summary{with(func(s *sweep.Summary) { s.Shard = "" })}, "part 1: shard"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sweep.Merge(tt.parts...)
			require.ErrorIs(t, err, sweep.ErrInvalid)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestFailingRuns(t *testing.T) {
	s := sweep.Summary{Scenarios: []string{"a", "b", "c"},
		ByProperty: map[string]map[string]sweep.SeedSet{
			"P2": {"b": sweep.SeedSetOf(3, 4, 9), "a": sweep.SeedSetOf(7)},
			"P5": {"b": sweep.SeedSetOf(4, 5)},
		},
		Failures: []sweep.Failure{{Scenario: "a", Seed: 8}},
	}
	got := sweep.FailingRuns(s)
	assert.Equal(t, []string{"a", "b"}, got.Scenarios, "in the summary's order; c never failed")
	require.Len(t, got.Seeds, 2)
	assert.Equal(t, "7-8", got.Seeds[0].String())
	assert.Equal(t, "3-5,9", got.Seeds[1].String(), "a seed that failed two properties runs once")
	assert.Equal(t, 6, got.Runs())
	assert.Zero(t, got.Unlisted)
}
