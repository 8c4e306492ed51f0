package main

import "github.com/leasesim/leasesim/internal/batchgc"

// The CLI's garbage collector policy for batch work (internal/batchgc:
// GOGC=400 and a 2 GiB soft memory limit, chosen by measurement), unless
// the environment sets GOGC or GOMEMLIMIT.
const (
	batchGCPercent   = batchgc.GCPercent
	batchMemoryLimit = batchgc.MemoryLimit
)

// setGCPolicy applies the batch policy unless the environment sets its own.
func setGCPolicy() { batchgc.Apply() }
