package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// Timers armed under successive grants fire with the tokens they were
// armed under, in order, also when a pause defers them; a crashed node
// arms none, and a timer that was never armed is a broken invariant.
func TestTokenTimersFireWithTheirTokens(t *testing.T) {
	w := sim.New(sim.Config{})
	var fired []uint64
	var q tokenTimers
	w.AddNode("n", func(n *sim.Node) {
		q = tokenTimers{delay: time.Second, fire: func() { fired = append(fired, q.next()) }}
		q.arm(n, 7)
		n.SetTimer(500*time.Millisecond, func() { q.arm(n, 8) })
		n.SetTimer(600*time.Millisecond, func() { n.Pause(2 * time.Second) }) // both due while paused
		n.SetTimer(3*time.Second, func() { q.arm(n, 9); n.Crash(); q.arm(n, 10) })
	})
	require.NoError(t, w.RunFor(10*time.Second).Err)
	assert.Equal(t, []uint64{7, 8}, fired, "9 was lost with the crash, 10 never armed")
	assert.Equal(t, []uint64{9}, q.tokens[q.head:], "9, armed before the crash, never fires")
	assert.Equal(t, uint64(9), q.next())
	assert.PanicsWithValue(t, "scenarios: invariant token-timer-armed: a workload timer fired that was never armed",
		func() { q.next() })
}
