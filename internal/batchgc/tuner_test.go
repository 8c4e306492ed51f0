package batchgc

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/gcwatch"
)

// The GOGC for a heap in use lets it grow to Threshold, within the bounds.
func TestGCPercent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		inUse uint64
		want  int
	}{
		{"no heap read", 0, MaxGCPercent},
		{"a sweep's few megabytes", 4 << 20, MaxGCPercent},
		{"a fifth of the threshold", Threshold / 5, 400},
		{"a quarter", Threshold / 4, 300},
		{"a half", Threshold / 2, 100},
		{"past the threshold's two thirds", Threshold * 3 / 4, MinGCPercent},
		{"past the threshold", 2 * Threshold, MinGCPercent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, gcPercent(tc.inUse))
		})
	}
}

// A stopped tuner sets no GOGC after the next collection.
func TestStoppedTunerLeavesGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tn := startTuner()
	tn.percent = 0 // so that a running tuner would set MaxGCPercent
	tn.stop()
	debug.SetGCPercent(123)
	for range 5 { // collections that allocation brings about, as batch work does
		require.True(t, gcwatch.Churn(1), "a collection ran")
		runtime.Gosched()
	}
	assert.Equal(t, 123, debug.SetGCPercent(123), "a stopped tuner must not set GOGC")
}
