package k8s

import (
	"time"

	"k8s.io/utils/clock"

	"github.com/leasesim/leasesim/gohost"
)

// Clock returns n's drifting clock (gohost.Node.Clock) as the clock
// Kubernetes code takes by injection (k8s.io/utils/clock): controllers,
// workqueues and caches that accept a clock.Clock see the node's drift
// and steps from the schedule; code that reads time.Now directly (as
// client-go's LeaderElector does) sees the bubble's one clock instead,
// and the run's NotApplied says so.
func Clock(n *gohost.Node) clock.WithTickerAndDelayedExecution { return kubeClock{n.Clock()} }

// kubeClock adapts a gohost.Clock to k8s.io/utils/clock: the methods
// whose results are the clock package's own interfaces forward; the rest
// are gohost.Clock's.
type kubeClock struct{ gohost.Clock }

// NewTimer returns a timer on the node's monotonic clock.
func (k kubeClock) NewTimer(d time.Duration) clock.Timer { return k.Clock.NewTimer(d) }

// NewTicker returns a ticker on the node's monotonic clock.
func (k kubeClock) NewTicker(d time.Duration) clock.Ticker { return k.Clock.NewTicker(d) }

// AfterFunc calls f once d has passed on the node's monotonic clock.
func (k kubeClock) AfterFunc(d time.Duration, f func()) clock.Timer { return k.Clock.AfterFunc(d, f) }
