package main

import (
	"os"
	"runtime/debug"
)

// The CLI's garbage collector policy for batch work. A sweep's runs each
// build and drop a history, so the collector runs often at the default
// GOGC=100. Measured on `simrun sweep --scenario all --seeds 1-300` (2 cores,
// 3 alternating rounds, medians): GOGC=100 32.3 s and 37-43 MB peak RSS,
// GOGC=200 25.6 s and 53-59 MB, GOGC=400 16.0 s and 88-98 MB. GOGC=400 is
// about twice as fast for about 2.4 times the memory, and a soft memory limit
// keeps a large run from growing without bound. Either setting yields to
// the environment's GOGC and GOMEMLIMIT.
const (
	batchGCPercent   = 400
	batchMemoryLimit = 2 << 30 // bytes; soft: the collector works harder near it
)

// setGCPolicy applies the batch policy unless the environment sets its own.
func setGCPolicy() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(batchGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(batchMemoryLimit)
	}
}
