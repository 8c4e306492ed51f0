package gohost_test

import (
	"time"

	"github.com/leasesim/leasesim/sim"
)

// gohostPareto is a heavy-tailed latency, so that seeds differ visibly.
var gohostPareto = sim.ParetoDist(500*time.Microsecond, 50*time.Millisecond, 1.5)

func fixed(d time.Duration) sim.Dist { return sim.FixedDist(d) }
