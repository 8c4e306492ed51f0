package sweep_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/sweep"
)

func TestParseSeeds(t *testing.T) {
	tests := []struct {
		in      string
		want    sweep.Seeds
		wantErr string
	}{
		{in: "1-500", want: sweep.Seeds{First: 1, Last: 500}},
		{in: "7", want: sweep.Seeds{First: 7, Last: 7}},
		{in: "0-0", want: sweep.Seeds{First: 0, Last: 0}},
		{in: " 3-4 ", want: sweep.Seeds{First: 3, Last: 4}},
		{in: "5-2", wantErr: "below the first"},
		{in: "x", wantErr: `"x" is not one`},
		{in: "1-", wantErr: `"" is not one`},
		{in: "-3", wantErr: `"" is not one`},
		{in: "1-2-3", wantErr: `"2-3" is not one`},
		{in: "", wantErr: "want A-B"},
		{in: "0-18446744073709551615", wantErr: "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := sweep.ParseSeeds(tt.in)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, sweep.ErrInvalid)
				assert.ErrorContains(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), tt.in, "the message names the input")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in      string
		want    sweep.Shard
		wantErr string
	}{
		{in: "1/1", want: sweep.Shard{Index: 1, Count: 1}},
		{in: "3/4", want: sweep.Shard{Index: 3, Count: 4}},
		{in: "3/2", wantErr: "between 1 and 2"},
		{in: "0/2", wantErr: "between 1 and 2"},
		{in: "1/0", wantErr: "at least 1"},
		{in: "-1/2", wantErr: "between 1 and 2"},
		{in: "2", wantErr: "want I/N"},
		{in: "a/b", wantErr: "want I/N"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := sweep.ParseShard(tt.in)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, sweep.ErrInvalid)
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.in, got.String())
		})
	}
	assert.Equal(t, "1/1", sweep.Shard{}.String(), "the zero shard is the whole range")
}

// Property: the shards of N split a seed range exactly: every seed is in
// one shard, and Len, Seed and Has agree.
func TestShardsPartitionTheRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		first := rapid.Uint64Range(0, 1<<40).Draw(t, "first")
		r := sweep.Seeds{First: first, Last: first + rapid.Uint64Range(0, 200).Draw(t, "span")}
		n := rapid.IntRange(1, 12).Draw(t, "n")
		owner := map[uint64]int{}
		total := 0
		for i := 1; i <= n; i++ {
			sh := sweep.Shard{Index: i, Count: n}
			total += sh.Len(r)
			for k := range sh.Len(r) {
				seed := sh.Seed(r, k)
				require.True(t, sh.Has(r, seed), "shard %s seed %d", sh, seed)
				_, dup := owner[seed]
				require.False(t, dup, "seed %d in two shards", seed)
				owner[seed] = i
				if k > 0 {
					require.Greater(t, seed, sh.Seed(r, k-1), "seeds come in order")
				}
			}
		}
		require.Equal(t, r.Count(), total)
		require.Len(t, owner, r.Count())
	})
}
