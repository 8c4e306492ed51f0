// Package pooled is what TestPoolUsesFlagsAPooledFile must flag: a pool,
// a forced collection, a collector policy and an import of spares.
package pooled

import (
	rt "runtime"
	gc "runtime/debug"
	"sync"

	"github.com/leasesim/leasesim/internal/spares"
)

var tables sync.Pool

var kept spares.Spares[[]int]

func collect() {
	rt.GC() // under another name, still flagged
	gc.SetGCPercent(400)
}
