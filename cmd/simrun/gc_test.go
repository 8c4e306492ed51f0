package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The batch policy applies unless the environment sets GOGC or GOMEMLIMIT.
func TestGCPolicy(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	setGCPolicy()
	assert.Equal(t, batchGCPercent, debug.SetGCPercent(batchGCPercent))
	assert.Equal(t, int64(batchMemoryLimit), debug.SetMemoryLimit(-1))

	debug.SetGCPercent(100)
	debug.SetMemoryLimit(1 << 40)
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	setGCPolicy()
	assert.Equal(t, 100, debug.SetGCPercent(100), "the environment's GOGC wins")
	assert.Equal(t, int64(1<<40), debug.SetMemoryLimit(-1), "the environment's GOMEMLIMIT wins")
}
