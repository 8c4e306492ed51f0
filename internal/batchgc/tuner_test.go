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
		runs  int64
		want  int
	}{
		{"no heap read", 0, 1, MaxGCPercent},
		{"a sweep's few megabytes", 4 << 20, 1, MaxGCPercent},
		{"a fifth of the threshold", Threshold / 5, 1, 400},
		{"a quarter", Threshold / 4, 1, 300},
		{"a half", Threshold / 2, 1, 100},
		{"past the threshold's two thirds", Threshold * 3 / 4, 1, MinGCPercent},
		{"past the threshold", 2 * Threshold, 1, MinGCPercent},
		{"no heap read, two runs", 0, 2, 2 * MaxGCPercent},
		{"a few megabytes, two runs", 4 << 20, 2, 2 * MaxGCPercent},
		{"two fifths of the threshold, two runs", 2 * Threshold / 5, 2, 400},
		{"a quarter of the threshold, two runs", Threshold / 4, 2, 700},
		{"a half each, two runs", Threshold, 2, 100},
		{"past the threshold, two runs", 4 * Threshold, 2, MinGCPercent},
		{"runs below one count as one", 4 << 20, 0, MaxGCPercent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, gcPercent(tc.inUse, tc.runs))
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
