package zookeeper

import (
	"testing"

	"github.com/leasesim/leasesim/internal/zootable"
)

// TestMeasure writes RESULTS.md's tables (internal/zootable): every
// scenario over seeds 1..ZOOKEEPER_SEEDS, each run twice, the first failing seed
// shrunk and replayed; ZOOKEEPER_ONLY (comma-separated) keeps the scenarios whose
// name contains one of its parts. Skipped unless ZOOKEEPER_SEEDS is set:
//
//	ZOOKEEPER_SEEDS=200 ZOOKEEPER_RESULTS=/tmp/results.md go test -run TestMeasure -timeout 60m .
func TestMeasure(t *testing.T) { zootable.Measure(t, "ZOOKEEPER", Scenarios()) }
