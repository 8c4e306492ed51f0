package redsync

import (
	"testing"

	"github.com/leasesim/leasesim/internal/zootable"
)

// TestMeasure writes RESULTS.md's tables (internal/zootable): every
// scenario over seeds 1..REDSYNC_SEEDS, each run twice, the first failing seed
// shrunk and replayed; REDSYNC_ONLY (comma-separated) keeps the scenarios whose
// name contains one of its parts. Skipped unless REDSYNC_SEEDS is set:
//
//	REDSYNC_SEEDS=200 REDSYNC_RESULTS=/tmp/results.md go test -run TestMeasure -timeout 60m .
func TestMeasure(t *testing.T) { zootable.Measure(t, "REDSYNC", Scenarios()) }
