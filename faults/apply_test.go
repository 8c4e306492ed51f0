package faults

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// cluster is a world of nodes that ping every other node every 100ms of
// local time, passing a failpoint named "before-send" first. It counts
// boots and deliveries.
type cluster struct {
	w         *sim.World
	boots     map[string]int
	delivered map[[2]string][]sim.Time // (from, to) -> delivery times
}

const tick = 100 * time.Millisecond

func newCluster(seed uint64, names ...string) *cluster {
	c := &cluster{w: sim.New(sim.Config{Seed: seed}), boots: map[string]int{}, delivered: map[[2]string][]sim.Time{}}
	for _, name := range names {
		c.w.AddNode(name, c.boot)
	}
	return c
}

func (c *cluster) boot(n *sim.Node) {
	c.boots[n.Name()]++
	n.Handle(func(from sim.NodeID, _ any) {
		key := [2]string{c.w.Node(from).Name(), n.Name()}
		c.delivered[key] = append(c.delivered[key], c.w.Now())
	})
	var ping func()
	ping = func() {
		n.Failpoint("before-send", func() {
			for _, other := range c.w.Nodes() {
				if other.ID() != n.ID() {
					n.Send(other.ID(), "ping")
				}
			}
			n.SetTimer(tick, ping)
		})
	}
	n.SetTimer(tick, ping)
}

// deliveries counts messages from -> to delivered in [lo, hi].
func (c *cluster) deliveries(from, to string, lo, hi time.Duration) int {
	count := 0
	for _, at := range c.delivered[[2]string{from, to}] {
		if at >= sim.Time(lo) && at <= sim.Time(hi) {
			count++
		}
	}
	return count
}

func (c *cluster) node(name string) *sim.Node {
	n, _ := c.w.Lookup(name)
	return n
}

func (c *cluster) runUntil(d time.Duration) { c.w.RunUntil(sim.Time(d)) }

func sched(healAt time.Duration, events ...Event) Schedule {
	return Schedule{Version: Version, HealAt: healAt, Events: events}
}

func TestApplyPartitionBlocksAndHealHeals(t *testing.T) {
	c := newCluster(1, "n1", "n2", "n3")
	s := sched(5*time.Second, Event{At: time.Second, Kind: KindPartition, Groups: [][]string{{"n1"}, {"n2", "n3"}}})
	require.NoError(t, s.Apply(c.w))

	c.runUntil(3 * time.Second)
	net := c.w.Network()
	assert.True(t, net.Blocked(0, 1))
	assert.True(t, net.Blocked(1, 0))
	assert.False(t, net.Blocked(1, 2), "n2 and n3 are on one side")
	// Allow for messages sent just before the cut that arrive within the
	// link's 5ms latency bound.
	assert.Zero(t, c.deliveries("n1", "n2", time.Second+10*time.Millisecond, 3*time.Second), "nothing crosses")
	assert.NotZero(t, c.deliveries("n2", "n3", time.Second, 3*time.Second))

	c.runUntil(7 * time.Second)
	assert.False(t, net.Blocked(0, 1))
	assert.NotZero(t, c.deliveries("n1", "n2", 5*time.Second, 7*time.Second), "heal really heals")
}

func TestApplyPartitionKinds(t *testing.T) {
	names := []string{"n1", "n2", "n3", "n4"}
	tests := []struct {
		name    string
		event   Event
		blocked [][2]int // ordered pairs cut at 2s; every other pair is up
	}{
		{"split into three", Event{Kind: KindPartition, Groups: [][]string{{"n1"}, {"n2"}, {"n3", "n4"}}},
			[][2]int{{0, 1}, {1, 0}, {0, 2}, {2, 0}, {0, 3}, {3, 0}, {1, 2}, {2, 1}, {1, 3}, {3, 1}}},
		{"one way", Event{Kind: KindPartitionOneWay, From: "n1", To: "n2"}, [][2]int{{0, 1}}},
		{"isolate", Event{Kind: KindIsolate, Node: "n4"}, [][2]int{{3, 0}, {0, 3}, {3, 1}, {1, 3}, {3, 2}, {2, 3}}},
		{"bridge", Event{Kind: KindBridge, Groups: [][]string{{"n1"}, {"n2", "n4"}}, Bridge: "n3"},
			[][2]int{{0, 1}, {1, 0}, {0, 3}, {3, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCluster(2, names...)
			tt.event.At = time.Second
			require.NoError(t, sched(5*time.Second, tt.event).Apply(c.w))
			c.runUntil(2 * time.Second)
			cut := map[[2]int]bool{}
			for _, p := range tt.blocked {
				cut[p] = true
			}
			for a := range names {
				for b := range names {
					if a != b {
						assert.Equal(t, cut[[2]int{a, b}], c.w.Network().Blocked(sim.NodeID(a), sim.NodeID(b)), "%s -> %s", names[a], names[b])
					}
				}
			}
			c.runUntil(6 * time.Second)
			for a := range names {
				for b := range names {
					assert.False(t, c.w.Network().Blocked(sim.NodeID(a), sim.NodeID(b)), "healed")
				}
			}
		})
	}
}

func TestApplyCrashAndRestartReboot(t *testing.T) {
	c := newCluster(3, "n1", "n2")
	s := sched(10*time.Second,
		Event{At: time.Second, Kind: KindCrash, Node: "n1"},
		Event{At: 2 * time.Second, Kind: KindRestart, Node: "n1"},
		Event{At: 3 * time.Second, Kind: KindCrash, Node: "n2"}, // restarted by the heal phase
	)
	require.NoError(t, s.Apply(c.w))
	c.runUntil(1500 * time.Millisecond)
	assert.Equal(t, sim.Crashed, c.node("n1").State())
	assert.Zero(t, c.deliveries("n2", "n1", 1010*time.Millisecond, 1500*time.Millisecond), "a crashed node receives nothing")

	c.runUntil(2500 * time.Millisecond)
	assert.Equal(t, sim.Up, c.node("n1").State())
	assert.Equal(t, uint64(1), c.node("n1").Incarnation())
	assert.Equal(t, 2, c.boots["n1"], "restart runs boot again")

	c.runUntil(9 * time.Second)
	assert.Equal(t, sim.Crashed, c.node("n2").State())
	c.runUntil(11 * time.Second)
	assert.Equal(t, sim.Up, c.node("n2").State(), "the heal phase restarts crashed nodes")
	assert.Equal(t, 2, c.boots["n2"])
}

func TestApplyProcessAndClockFaults(t *testing.T) {
	c := newCluster(4, "n1", "n2", "n3")
	link := sim.LinkConfig{Latency: sim.FixedDist(50 * time.Millisecond), Loss: 0.5}
	s := sched(5*time.Second,
		Event{At: time.Second, Kind: KindPause, Node: "n1", Duration: time.Hour},
		Event{At: time.Second, Kind: KindDrift, Node: "n2", Drift: 0.01},
		Event{At: time.Second, Kind: KindStep, Node: "n3", Step: -time.Minute},
		Event{At: time.Second, Kind: KindLink, From: AnyNode, To: AnyNode, Link: &link},
	)
	require.NoError(t, s.Apply(c.w))
	wallBefore := c.node("n3").WallNow()
	c.runUntil(2 * time.Second)
	assert.Equal(t, sim.Paused, c.node("n1").State())
	assert.Equal(t, int64(10_000_000), c.node("n2").DriftPPB())
	assert.Less(t, c.node("n3").WallNow().Sub(wallBefore), -57*time.Second, "stepped back a minute")
	assert.Equal(t, link, c.w.Network().Link(1, 2))
	assert.Equal(t, link, c.w.Network().Link(2, 0))

	c.runUntil(5 * time.Second)
	assert.Equal(t, sim.Up, c.node("n1").State(), "the heal phase resumes an hour-long pause")
	assert.Zero(t, c.node("n2").DriftPPB(), "drift back to zero")
	assert.Equal(t, sim.DefaultLink, c.w.Network().Link(1, 2), "links reset")
	assert.Less(t, c.node("n3").WallNow().Sub(wallBefore), -50*time.Second, "a step is not undone")
}

func TestApplyFailpoints(t *testing.T) {
	c := newCluster(5, "n1", "n2", "n3")
	s := sched(10*time.Second,
		Event{At: time.Second, Kind: KindFailpoint, Node: "n1", Failpoint: "before-send", Action: ActionPause, Duration: 2 * time.Second},
		Event{At: time.Second, Kind: KindFailpoint, Node: "n2", Failpoint: "before-send", Action: ActionCrash},
		// n3 is paused past the heal phase, so it reaches its armed
		// failpoint only after the heal phase has disarmed it.
		Event{At: 500 * time.Millisecond, Kind: KindPause, Node: "n3", Duration: time.Hour},
		Event{At: time.Second, Kind: KindFailpoint, Node: "n3", Failpoint: "before-send", Action: ActionCrash},
	)
	require.NoError(t, s.Apply(c.w))
	c.runUntil(1500 * time.Millisecond)
	assert.Equal(t, sim.Paused, c.node("n1").State(), "paused at the failpoint")
	assert.Equal(t, sim.Crashed, c.node("n2").State(), "crashed at the failpoint")
	c.runUntil(3500 * time.Millisecond)
	assert.Equal(t, sim.Up, c.node("n1").State(), "the failpoint pause ends")
	c.runUntil(12 * time.Second)
	assert.Equal(t, sim.Up, c.node("n2").State())
	assert.Equal(t, sim.Up, c.node("n3").State())

	var hits []string
	for _, rec := range c.w.Faults() {
		if rec.Kind == sim.FaultFailpointHit {
			hits = append(hits, rec.Node)
		}
	}
	assert.Equal(t, []string{"n1", "n2"}, hits, "one-shot, and disarmed by the heal phase")
}

func TestApplyRejects(t *testing.T) {
	c := newCluster(6, "n1")
	err := sched(time.Second, Event{Kind: KindCrash, Node: "n9"}).Apply(c.w)
	require.Error(t, err)
	assert.Equal(t, `faults: event 0 (crash): node: unknown node "n9"`, err.Error())

	c.runUntil(5 * time.Second)
	err = sched(10*time.Second, Event{At: time.Second, Kind: KindCrash, Node: "n1"}).Apply(c.w)
	require.Error(t, err)
	assert.Equal(t, "faults: event 0 (crash): at: 1s is before the world's current time 5s", err.Error())
	err = sched(time.Second).Apply(c.w)
	require.Error(t, err)
	assert.Equal(t, "faults: heal_at: 1s is before the world's current time 5s", err.Error())
	assert.ErrorIs(t, err, ErrInvalid)
	err = sched(10*time.Second, Event{At: 6 * time.Second, Kind: KindStallConns, Groups: [][]string{{"n1"}, {"n2"}}}).Apply(newCluster(6, "n1", "n2").w)
	require.Error(t, err)
	assert.Equal(t, "faults: event 0 (stall-conns): kind: stall-conns acts on connections, which the event host's message network does not have (the goroutine host applies it)", err.Error())
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Empty(t, c.w.Faults(), "a rejected schedule schedules nothing")
}

func TestApplySameInstantInListOrder(t *testing.T) {
	c := newCluster(7, "n1")
	s := sched(10*time.Second,
		Event{At: time.Second, Kind: KindCrash, Node: "n1"},
		Event{At: 2 * time.Second, Kind: KindRestart, Node: "n1"},
		Event{At: 2 * time.Second, Kind: KindCrash, Node: "n1"},
	)
	require.NoError(t, s.Apply(c.w))
	c.runUntil(3 * time.Second)
	assert.Equal(t, sim.Crashed, c.node("n1").State(), "restart, then crash, at 2s")
	assert.Equal(t, uint64(1), c.node("n1").Incarnation())
}

func TestApplyWildcardLinkOnALargeWorld(t *testing.T) {
	// "*" -> "*" over 260 nodes sets 67,340 links, more than the kernel's
	// 65,535 distinct link configurations; the kernel shares equal ones, so
	// the one event fits in one configuration and every link takes it.
	w := sim.New(sim.Config{Seed: 9})
	for i := range 260 {
		w.AddNode(fmt.Sprintf("n%d", i), nil)
	}
	link := sim.LinkConfig{Latency: sim.FixedDist(time.Millisecond)}
	s := sched(time.Minute, Event{At: time.Second, Kind: KindLink, From: AnyNode, To: AnyNode, Link: &link})
	require.NoError(t, s.Apply(w))
	res := w.RunUntil(sim.Time(2 * time.Second))
	require.NoError(t, res.Err)
	net := w.Network()
	assert.Equal(t, link, net.Link(0, 259))
	assert.Equal(t, link, net.Link(259, 0))
	assert.Equal(t, link, net.Link(130, 7))
}
