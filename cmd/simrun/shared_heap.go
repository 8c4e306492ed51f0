package main

import (
	"runtime"

	"github.com/leasesim/leasesim/internal/batchgc"
)

// shareHeap tells the collector's batch policy how many runs share this
// process's heap at once and returns that number: parallel, or every core
// for 0, as sweep.Config and tune.Config read it. An event-host sweep runs
// them in process; a goroutine-host sweep judges the histories of that
// many worker processes' runs at once.
func shareHeap(parallel int) int {
	if parallel == 0 {
		parallel = runtime.NumCPU()
	}
	batchgc.RunsAtOnce(parallel)
	return parallel
}
