package lease

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlabClone(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{"nil stays nil", nil},
		{"empty stays empty", []byte{}},
		{"small", []byte("h1/7/12")},
		{"a quarter chunk", []byte(strings.Repeat("q", slabChunk/4))},
		{"larger than a quarter chunk", []byte(strings.Repeat("l", slabChunk/4+1))},
		{"larger than a chunk", []byte(strings.Repeat("c", 2*slabChunk))},
	}
	var s slab
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.clone(tt.in)
			assert.Equal(t, tt.in == nil, got == nil, "nil-ness kept")
			assert.Equal(t, tt.in, got)
			assert.Equal(t, len(got), cap(got), "capacity is the length, so an append copies")
		})
	}
}

func TestSlabValuesAreIndependent(t *testing.T) {
	var s slab
	var got [][]byte
	var want []string
	for i := range 3 * slabChunk / 7 { // fills several chunks
		v := []byte{byte('a' + i%26), byte(i), byte(i >> 8), 7, 7, 7, 7}
		got = append(got, s.clone(v))
		want = append(want, string(v))
		v[0] = 0 // the caller's bytes are its own
	}
	_ = append(got[0], 'x') // appending to one value changes no other
	for i := range got {
		require.Equal(t, want[i], string(got[i]), "value %d", i)
	}
}

func TestSlabAllocatesPerChunk(t *testing.T) {
	var s slab
	v := []byte("0123456789abcdef") // 32 per chunk
	allocs := testing.AllocsPerRun(320, func() { s.clone(v) })
	assert.Zero(t, allocs, "a chunk every 32 values rounds to none per value")
}

func TestStringSlabConcat(t *testing.T) {
	var s stringSlab
	var got, want []string
	for i := range slabChunk / 4 { // fills several chunks
		id := strings.Repeat("u", i%40)
		got = append(got, s.concat("effect/", "t1", "\x00", id))
		want = append(want, "effect/t1\x00"+id)
	}
	big := strings.Repeat("b", slabChunk)
	got, want = append(got, s.concat("k/", big)), append(want, "k/"+big)
	assert.Equal(t, want, got)
	assert.Empty(t, s.concat(), "no parts")
	allocs := testing.AllocsPerRun(300, func() { s.concat("effect/", "t1", "\x00", "t1/9") })
	assert.Zero(t, allocs, "a chunk every 42 strings rounds to none per string")
}
