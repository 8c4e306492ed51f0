package spares_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/spares"
)

// Spares are kept through collections, one per processor at most, taken
// once each, and all let go by Drop.
func TestSparesKeepOnePerProcessor(t *testing.T) {
	var s spares.Spares[*[]int]
	_, ok := s.Get()
	require.False(t, ok, "none at first")
	table := &[]int{1, 2, 3}
	s.Put(table)
	runtime.GC()
	runtime.GC() // a sync.Pool would be empty now
	got, ok := s.Get()
	require.True(t, ok)
	assert.Same(t, table, got)
	_, ok = s.Get()
	assert.False(t, ok, "taken once")
	for range runtime.GOMAXPROCS(0) + 2 {
		s.Put(&[]int{})
	}
	assert.Equal(t, runtime.GOMAXPROCS(0), s.Len(), "one per processor")
	s.Drop()
	assert.Zero(t, s.Len())
}

func ExampleSpares() {
	var tables spares.Spares[[]byte]
	run := func() int {
		table, ok := tables.Get()
		if !ok {
			table = make([]byte, 0, 1024)
		}
		table = append(table[:0], "a run's records"...)
		n := len(table)
		tables.Put(table) // the run is done with it
		return n
	}
	fmt.Println(run(), run(), tables.Len())
	// Output: 15 15 1
}
