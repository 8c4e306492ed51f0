package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/sim"
)

// A handler that crashes its own node (a failpoint in a callback) and then
// sends has no process left: the send is dropped, not a harness panic.
func TestSendAfterCrashInTheSameHandlerIsDropped(t *testing.T) {
	w := sim.New(sim.Config{Seed: 1})
	var got []any
	b := w.AddNode("b", func(n *sim.Node) {
		n.Handle(func(from sim.NodeID, payload any) { got = append(got, payload) })
	})
	w.AddNode("a", func(n *sim.Node) {
		n.SetTimer(time.Millisecond, func() {
			n.Send(b.ID(), "before")
			n.Crash()
			assert.False(t, n.SendRelease(b.ID(), "after", nil), "nothing was queued")
		})
	})
	w.RunFor(time.Second)
	assert.Equal(t, []any{"before"}, got)
}
