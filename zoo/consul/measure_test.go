package consul

import (
	"testing"

	"github.com/leasesim/leasesim/internal/zootable"
)

// TestMeasure writes RESULTS.md's tables (internal/zootable): every
// scenario over seeds 1..CONSUL_SEEDS, each run twice, the first failing seed
// shrunk and replayed; CONSUL_ONLY (comma-separated) keeps the scenarios whose
// name contains one of its parts. Skipped unless CONSUL_SEEDS is set:
//
//	CONSUL_SEEDS=200 CONSUL_RESULTS=/tmp/results.md go test -run TestMeasure -timeout 60m .
func TestMeasure(t *testing.T) { zootable.Measure(t, "CONSUL", Scenarios()) }
