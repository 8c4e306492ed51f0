package main

import (
	"runtime"

	"github.com/leasesim/leasesim/internal/batchgc"
)

// shareHeap tells the collector's batch policy how many runs of an
// in-process sweep share this process's heap: parallel, or every core for
// 0, as sweep.Config and tune.Config read it. A goroutine-host sweep's
// runs live in worker processes and do not call it.
func shareHeap(parallel int) {
	if parallel == 0 {
		parallel = runtime.NumCPU()
	}
	batchgc.RunsAtOnce(parallel)
}
