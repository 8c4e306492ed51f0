package k8s

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/utils/clock"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
)

// A node whose clock runs 5% fast sleeps, waits on a timer and ticks by its
// own clock through the k8s.io/utils/clock adapter.
func TestClockDrifts(t *testing.T) {
	var slept, timed, ticked time.Duration
	node := func(ctx context.Context, n *gohost.Node) error {
		var c clock.WithTickerAndDelayedExecution = Clock(n)
		start := time.Now() // the bubble's true time
		c.Sleep(time.Second)
		slept = time.Since(start)
		start = time.Now()
		<-c.NewTimer(time.Second).C()
		timed = time.Since(start)
		start = time.Now()
		tk := c.NewTicker(time.Second)
		<-tk.C()
		tk.Stop()
		ticked = time.Since(start)
		fired := make(chan struct{})
		c.AfterFunc(time.Millisecond, func() { close(fired) })
		<-fired
		return nil
	}
	cfg := gohost.Config{Duration: 10 * time.Second, Verify: true,
		Schedule: faults.Schedule{Version: faults.Version, HealAt: 9 * time.Second,
			Events: []faults.Event{{At: 0, Kind: faults.KindDrift, Node: "a", Drift: 0.05}}},
		Nodes: []gohost.NodeSpec{{Name: "a", Run: node}}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	drift := 0.05
	fast := time.Duration(float64(time.Second) / (1 + drift))
	for _, d := range []time.Duration{slept, timed, ticked} {
		assert.InDelta(t, float64(fast), float64(d), float64(time.Millisecond), "a second of the node's clock is %v of true time", fast)
	}
	assert.Equal(t, int64(50_000_000), res.History.MaxDriftPPB, "the drift reached code that read the clock")
}
