package leasewire_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
)

// TestDeclarationsRoundTrip checks that a detector's history keeps its
// detection bound and its declarations through WriteHistory and
// ReadHistory, which is how simrun check and the reports read them.
func TestDeclarationsRoundTrip(t *testing.T) {
	h := &history.History{Lease: history.Lease{TTL: 40 * time.Second, DetectBound: 50 * time.Second},
		Grantor: "apiserver", End: 100,
		Declarations: []history.Declaration{
			{Detector: "controller", Member: "node-1", Dead: true, At: 60, Grace: 40 * time.Second},
			{Detector: "controller", Member: "node-1", Dead: false, At: 70},
		}}
	var buf bytes.Buffer
	require.NoError(t, leasewire.WriteHistory(&buf, h))
	assert.Contains(t, buf.String(), `"detect_bound_ns":50000000000`)
	got, _, err := leasewire.ReadHistory(&buf, "h.jsonl")
	require.NoError(t, err)
	assert.Equal(t, h.Declarations, got.Declarations)
	assert.Equal(t, 50*time.Second, got.Lease.DetectBound)
}
