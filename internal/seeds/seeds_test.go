package seeds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string
		count    int
		err      string
	}{
		{"7", "7", 1, ""},
		{"1-500", "1-500", 500, ""},
		{"9,1-5", "1-5,9", 6, ""},
		{"1-5,3-8,10", "1-8,10", 9, ""},
		{"5-2", "", 0, "the last seed is below the first"},
		{"x", "", 0, `"x" is not one`},
		{"", "", 0, "want N, A-B"},
		{"0-1073741824", "", 0, "more than"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			set, err := Parse(tc.in)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, set.String())
			assert.Equal(t, tc.count, set.Count())
			back, err := Parse(set.String())
			require.NoError(t, err)
			assert.Equal(t, set, back, "String writes what Parse reads")
		})
	}
}

func TestSetAtIndexRanges(t *testing.T) {
	set, err := Parse("1-3,7,10-11")
	require.NoError(t, err)
	var got []uint64
	for k := range set.Count() {
		s := set.At(k)
		i, ok := set.Index(s)
		require.True(t, ok)
		assert.Equal(t, k, i)
		got = append(got, s)
	}
	assert.Equal(t, []uint64{1, 2, 3, 7, 10, 11}, got)
	assert.False(t, set.Has(5))
	assert.Equal(t, []Range{{1, 3}, {7, 7}, {10, 11}}, set.Ranges())
	assert.Equal(t, set, FromRanges(set.Ranges()))
	assert.Equal(t, "1-3,7", List(7, 3, 1, 2, 2).String())
}
