package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/sim"
)

// TestSendReleaseReleasesEachQueuedPayloadOnce sends through a lossy,
// duplicating, bounded link to a receiver that is partitioned, paused,
// crashed and restarted at random, and checks the release contract: a
// payload that was queued is released exactly once, after its last copy
// was handled or dropped and never while a handler holds it; one that was
// not queued is never released.
func TestSendReleaseReleasesEachQueuedPayloadOnce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		link := sim.LinkConfig{
			Latency: sim.UniformDist(time.Millisecond, 20*time.Millisecond),
			Loss:    rapid.Float64Range(0, 0.5).Draw(t, "loss"), Duplicate: rapid.Float64Range(0, 0.8).Draw(t, "dup"),
			InFlightMax: rapid.IntRange(1, 8).Draw(t, "bound"),
		}
		w := sim.New(sim.Config{Seed: rapid.Uint64().Draw(t, "seed"), Link: &link})
		type state struct {
			queued    bool
			handling  bool
			handled   int
			released  int
			afterLast bool // handled after its release
		}
		var msgs []*state
		recv := w.AddNode("recv", func(n *sim.Node) {
			n.Handle(func(_ sim.NodeID, payload any) {
				s := msgs[payload.(int)]
				s.handling = true
				s.handled++
				s.afterLast = s.afterLast || s.released > 0
				s.handling = false
			})
		})
		release := func(payload any) {
			s := msgs[payload.(int)]
			assert.False(t, s.handling, "released while its handler runs")
			s.released++
		}
		send := w.AddNode("send", nil)
		ms := func(label string) sim.Time {
			return sim.Time(rapid.Int64Range(0, 500).Draw(t, label)) * sim.Time(time.Millisecond)
		}
		for range rapid.IntRange(1, 40).Draw(t, "messages") {
			w.At(ms("send"), func() {
				msgs = append(msgs, &state{})
				i := len(msgs) - 1
				msgs[i].queued = send.SendRelease(recv.ID(), i, release)
			})
		}
		switch rapid.IntRange(0, 2).Draw(t, "fault") {
		case 0:
			start := ms("cut")
			w.At(start, func() { w.Network().Isolate(recv.ID()) })
			w.At(start+ms("cut length"), w.Network().Heal)
		case 1:
			w.At(ms("pause"), func() { recv.Pause(time.Duration(ms("pause length"))) })
		case 2:
			start := ms("crash")
			w.At(start, func() { recv.Pause(50 * time.Millisecond) }) // messages wait, then the crash drops them
			w.At(start+sim.Time(10*time.Millisecond), recv.Crash)
			w.At(start+ms("down"), recv.Restart)
		}
		require.NoError(t, w.RunFor(2*time.Second).Err) // every copy has long arrived
		for i, s := range msgs {
			if !s.queued {
				assert.Zero(t, s.released, "message %d was never queued: it is not released", i)
				continue
			}
			assert.Equal(t, 1, s.released, "message %d is released once", i)
			assert.False(t, s.afterLast, "message %d was handled after its release", i)
		}
	})
}

// A sender that recycles its payloads through SendRelease sends and
// delivers with no allocation in the steady state, duplicates included.
func TestSendReleaseAllocatesNothing(t *testing.T) {
	link := sim.LinkConfig{Latency: sim.FixedDist(time.Millisecond), Duplicate: 0.3}
	w := sim.New(sim.Config{Link: &link, Trace: sim.TraceConfig{Keep: -1}})
	type payload struct{ n int }
	var free []*payload
	release := func(p any) { free = append(free, p.(*payload)) }
	got := 0
	recv := w.AddNode("recv", func(n *sim.Node) { n.Handle(func(sim.NodeID, any) { got++ }) })
	send := w.AddNode("send", nil)
	sendAll := func() {
		for i := range 8 {
			var p *payload
			if n := len(free); n > 0 {
				p, free = free[n-1], free[:n-1]
			} else {
				p = &payload{}
			}
			p.n = i
			send.SendRelease(recv.ID(), p, release)
		}
	}
	round := func() {
		w.At(w.Now(), sendAll)
		if err := w.RunFor(10 * time.Millisecond).Err; err != nil {
			t.Fatal(err)
		}
	}
	for range 50 { // warm up: slabs, queue and the free list reach their size
		round()
	}
	assert.Zero(t, testing.AllocsPerRun(100, round), "a round of sends and deliveries allocates nothing")
	assert.Positive(t, got)
}
