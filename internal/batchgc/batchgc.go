// Package batchgc is the garbage collector's policy for leasesim's batch
// work: simrun's sweeps, runs and tuning, and the benchmarks that measure
// them as simrun runs them.
//
// A sweep's runs each build and drop a history, so the collector runs often
// at the default GOGC=100. Measured on `simrun sweep --scenario all --seeds
// 1-300` (2 cores, 3 alternating rounds, medians): GOGC=100 32.3 s and 37-43
// MB peak RSS, GOGC=200 25.6 s and 53-59 MB, GOGC=400 16.0 s and 88-98 MB.
// GOGC=400 is about twice as fast for about 2.4 times the memory, and a soft
// memory limit keeps a large run from growing without bound.
package batchgc

import (
	"os"
	"runtime/debug"
)

const (
	// GCPercent is the batch GOGC.
	GCPercent = 400
	// MemoryLimit is the batch soft memory limit, in bytes: the collector
	// works harder near it.
	MemoryLimit = 2 << 30
)

// Apply sets the batch policy, unless the environment sets its own GOGC or
// GOMEMLIMIT, which then wins.
func Apply() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
