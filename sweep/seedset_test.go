package sweep_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sweep"
)

func TestSeedSet(t *testing.T) {
	tests := []struct {
		name      string
		seeds     []uint64
		want      string
		count     int64
		omitted   int64
		wantFirst uint64
	}{
		{"empty", nil, "", 0, 0, 0},
		{"runs coalesce", []uint64{3, 4, 5, 9, 10, 15}, "3-5,9-10,15", 6, 0, 3},
		{"any order", []uint64{15, 4, 9, 3, 10, 5}, "3-5,9-10,15", 6, 0, 3},
		{"a gap filled joins both sides", []uint64{1, 3, 2}, "1-3", 3, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := sweep.SeedSetOf(tt.seeds...)
			assert.Equal(t, tt.want, set.String())
			assert.Equal(t, tt.count, set.Count())
			assert.Equal(t, tt.omitted, set.Omitted())
			first, ok := set.First()
			assert.Equal(t, tt.count > 0, ok)
			assert.Equal(t, tt.wantFirst, first)
		})
	}
}

// A set keeps at most MaxSeedRanges ranges, the lowest, and counts every
// seed, listed or not; merging sets keeps the counts exact.
func TestSeedSetIsBounded(t *testing.T) {
	var odd, even sweep.SeedSet
	for s := uint64(1); s <= 1000; s += 2 {
		odd.Add(s)
		even.Add(s + 1)
	}
	assert.Equal(t, int64(500), odd.Count())
	assert.Equal(t, int64(500-sweep.MaxSeedRanges), odd.Omitted())
	first, _ := odd.First()
	assert.Equal(t, uint64(1), first, "the lowest seeds are the ones listed")

	merged := odd
	merged.Merge(even)
	assert.Equal(t, int64(1000), merged.Count(), "exact, listed or not")
	assert.LessOrEqual(t, merged.Count()-merged.Omitted(), int64(1000))
	data, err := json.Marshal(merged)
	require.NoError(t, err)
	assert.Less(t, len(data), 1024, "bounded however many seeds")
}

func TestSeedSetJSON(t *testing.T) {
	set := sweep.SeedSetOf(3, 4, 5, 9)
	data, err := json.Marshal(set)
	require.NoError(t, err)
	assert.JSONEq(t, `{"count":4,"seeds":"3-5,9","omitted":0}`, string(data))
	var back sweep.SeedSet
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, set, back)
	assert.Equal(t, "3-5,9", set.Seeds().String(), "runnable as --seeds")

	for _, bad := range []string{
		`{"count":3,"seeds":"3-5,9","omitted":0}`,
		`{"count":4,"seeds":"x","omitted":0}`,
		`{"count":4,"seeds":"3-5,9","omitted":-1}`,
	} {
		var s sweep.SeedSet
		assert.Error(t, json.Unmarshal([]byte(bad), &s), bad)
	}
}

func FuzzSeedSetJSON(f *testing.F) {
	f.Add([]byte(`{"count":6,"seeds":"3-5,9","omitted":2}`))
	f.Add([]byte(`{"count":0,"seeds":"","omitted":0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s sweep.SeedSet
		if json.Unmarshal(data, &s) != nil {
			return
		}
		out, err := json.Marshal(s)
		require.NoError(t, err)
		var again sweep.SeedSet
		require.NoError(t, json.Unmarshal(out, &again), "what is written reads back: %s", out)
		require.Equal(t, s.Count(), again.Count())
		require.Equal(t, s.String(), again.String())
	})
}
