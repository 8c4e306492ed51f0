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
		str     string // String of the result; in when empty
		count   int
		wantErr string
	}{
		{in: "1-500", want: sweep.Seeds{First: 1, Last: 500}, count: 500},
		{in: "7", want: sweep.Seeds{First: 7, Last: 7}, count: 1},
		{in: "0-0", want: sweep.Seeds{First: 0, Last: 0}, str: "0", count: 1},
		{in: " 3-4 ", want: sweep.Seeds{First: 3, Last: 4}, str: "3-4", count: 2},
		{in: "1-5,9", want: sweep.SeedList(1, 2, 3, 4, 5, 9), count: 6},
		{in: "2,5,9", want: sweep.SeedList(9, 5, 2), count: 3},
		{in: "9, 2 ,5", want: sweep.SeedList(2, 5, 9), str: "2,5,9", count: 3},
		{in: "1-3,2-6", want: sweep.Seeds{First: 1, Last: 6}, str: "1-6", count: 6},
		{in: "1-3,4", want: sweep.Seeds{First: 1, Last: 4}, str: "1-4", count: 4},
		{in: "5,5", want: sweep.Seeds{First: 5, Last: 5}, str: "5", count: 1},
		{in: "5-2", wantErr: "5-2: the last seed is below the first"},
		{in: "1,5-2", wantErr: "5-2: the last seed is below the first"},
		{in: "x", wantErr: `"x" is not one`},
		{in: "1-", wantErr: `"" is not one`},
		{in: "-3", wantErr: `"" is not one`},
		{in: "1,,3", wantErr: `"" is not one`},
		{in: "1-2-3", wantErr: `"2-3" is not one`},
		{in: "", wantErr: "want N, A-B or a list"},
		{in: "random", wantErr: `"random" is not one`},
		{in: "0-18446744073709551615", wantErr: "more than"},
		{in: "0-1073741823,1073741825", wantErr: "more than"},
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
			assert.Equal(t, tt.count, got.Count())
			want := tt.str
			if want == "" {
				want = tt.in
			}
			assert.Equal(t, want, got.String())
		})
	}
}

// Property: a seed set reads back from its String, and At, Has and Count
// agree with the seeds it was built from.
func TestSeedsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seeds := rapid.SliceOfN(rapid.Uint64Range(0, 60), 1, 20).Draw(t, "seeds")
		set := sweep.SeedList(seeds...)
		back, err := sweep.ParseSeeds(set.String())
		require.NoError(t, err)
		require.Equal(t, set, back)
		distinct := map[uint64]bool{}
		for _, s := range seeds {
			distinct[s] = true
		}
		require.Equal(t, len(distinct), set.Count())
		prev := uint64(0)
		for k := range set.Count() {
			s := set.At(k)
			require.True(t, distinct[s], "seed %d at %d", s, k)
			require.True(t, set.Has(s))
			if k > 0 {
				require.Greater(t, s, prev)
			}
			prev = s
		}
		for s := uint64(0); s <= 61; s++ {
			require.Equal(t, distinct[s], set.Has(s), "seed %d", s)
		}
	})
}

func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{"1-500", "7", "1-5,9", "2,5,9", "5-2", "", "1,,3", "0-18446744073709551615"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := sweep.ParseSeeds(s)
		if err != nil {
			require.ErrorIs(t, err, sweep.ErrInvalid)
			return
		}
		require.NoError(t, set.Validate())
		back, err := sweep.ParseSeeds(set.String())
		require.NoError(t, err)
		require.Equal(t, set, back)
		require.Equal(t, set.First, set.At(0))
		require.Equal(t, set.Last, set.At(set.Count()-1))
	})
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
		if rapid.Bool().Draw(t, "gaps") {
			r = sweep.SeedList(rapid.SliceOfN(rapid.Uint64Range(first, first+300), 1, 200).Draw(t, "seeds")...)
		}
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
