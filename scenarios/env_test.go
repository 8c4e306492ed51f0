package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// A node's clock runs a timer's function when it is due on the node's
// clock, and never once the timer was stopped.
func TestNodeClockTimers(t *testing.T) {
	w := sim.New(sim.Config{})
	var fired []string
	w.AddNode("n", func(n *sim.Node) {
		c := nodeClock{newTransport(n, nil, newRunWiring())}
		c.AfterFunc(2*time.Second, func() { fired = append(fired, "second") })
		c.AfterFunc(time.Second, func() { fired = append(fired, "first") })
		stopped := c.AfterFunc(time.Second, func() { fired = append(fired, "stopped") })
		require.True(t, stopped.Stop())
		assert.False(t, stopped.Stop(), "stopped once")
	})
	require.NoError(t, w.RunFor(3*time.Second).Err)
	assert.Equal(t, []string{"first", "second"}, fired)
}
