package batchgc_test

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/batchgc"
	"github.com/leasesim/leasesim/internal/gcwatch"
)

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// settle brings collections about until GOGC is want, or a hundred have
// run, and returns GOGC. The tuner runs after a collection, in the
// finalizer goroutine; allocation brings one about, as batch work does.
func settle(t *testing.T, want int) int {
	for range 100 {
		require.True(t, gcwatch.Churn(1), "a collection ran")
		runtime.Gosched()
		if gcPercent() == want {
			break
		}
	}
	return gcPercent()
}

// The policy applies unless the environment sets GOGC or GOMEMLIMIT, and
// restore puts back what was there.
func TestApplyAndRestore(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := batchgc.Apply()
	assert.LessOrEqual(t, gcPercent(), batchgc.MaxGCPercent)
	assert.GreaterOrEqual(t, gcPercent(), batchgc.MinGCPercent)
	assert.Equal(t, int64(batchgc.MemoryLimit), debug.SetMemoryLimit(-1))
	restore()
	assert.Equal(t, 100, gcPercent())
	assert.Equal(t, int64(1<<40), debug.SetMemoryLimit(-1))

	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = batchgc.Apply()
	assert.Equal(t, 100, gcPercent(), "the environment's GOGC wins")
	assert.Equal(t, int64(1<<40), debug.SetMemoryLimit(-1), "the environment's GOMEMLIMIT wins")
	restore()
}

// GOGC follows the live heap: at MaxGCPercent while it is small, at
// MinGCPercent once it is past the threshold.
func TestGOGCFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	defer batchgc.Apply()()

	assert.Equal(t, batchgc.MaxGCPercent, settle(t, batchgc.MaxGCPercent), "a small live heap")
	big := make([]byte, batchgc.Threshold)
	for i := range big {
		big[i] = byte(i)
	}
	assert.Equal(t, batchgc.MinGCPercent, settle(t, batchgc.MinGCPercent), "a live heap past the threshold")
	runtime.KeepAlive(big)
}

// With two runs at once, a small live heap's GOGC is twice MaxGCPercent
// from the next collection on; the environment's GOGC still wins.
func TestRunsAtOnce(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	restore := batchgc.Apply()
	batchgc.RunsAtOnce(2)
	assert.Equal(t, 2*batchgc.MaxGCPercent, settle(t, 2*batchgc.MaxGCPercent), "two runs, a small live heap")
	batchgc.RunsAtOnce(1)
	assert.Equal(t, batchgc.MaxGCPercent, settle(t, batchgc.MaxGCPercent), "one run again")
	restore()

	t.Setenv("GOGC", "150")
	defer batchgc.Apply()()
	debug.SetGCPercent(150)
	batchgc.RunsAtOnce(2)
	for range 5 {
		require.True(t, gcwatch.Churn(1), "a collection ran")
		runtime.Gosched()
	}
	assert.Equal(t, 150, gcPercent(), "the environment's GOGC turned the tuning off")
}
