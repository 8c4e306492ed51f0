package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/sim"
)

// msg is a test message; its id ties a delivery to its send.
type msg struct{ id int }

// sent is what a network test remembers about one send.
type sent struct {
	from, to   sim.NodeID
	at         sim.Time
	latencyMin time.Duration
	blocked    bool // the reference model said the link was cut at send time
}

// delivery is one message arriving at a handler.
type delivery struct {
	id       int
	from, to sim.NodeID
	at       sim.Time
	blocked  bool // the reference model said the link was cut at delivery time
	state    sim.NodeState
}

// netHarness is a world whose nodes record every message they receive,
// with a reference model of which links are cut. The model is written from
// the definitions of the partition kinds, independently of the kernel.
type netHarness struct {
	w          *sim.World
	nodes      []*sim.Node
	cut        map[[2]sim.NodeID]bool
	sends      []sent
	deliveries []delivery
}

func newNetHarness(nodes int, link *sim.LinkConfig, keep int) *netHarness {
	h := &netHarness{cut: make(map[[2]sim.NodeID]bool)}
	h.w = sim.New(sim.Config{Seed: 7, Link: link, Trace: sim.TraceConfig{Keep: keep}})
	for i := range nodes {
		h.nodes = append(h.nodes, h.w.AddNode(nodeName(i), func(n *sim.Node) {
			n.Handle(func(from sim.NodeID, payload any) {
				h.deliveries = append(h.deliveries, delivery{id: payload.(*msg).id, from: from, to: n.ID(),
					at: h.w.Now(), blocked: h.cut[[2]sim.NodeID{from, n.ID()}], state: n.State()})
			})
		}))
	}
	return h
}

// send sends a message now if from is up (a paused or crashed node runs no
// code) and reports whether it did.
func (h *netHarness) send(from, to sim.NodeID) bool {
	n := h.w.Node(from)
	if n.State() != sim.Up {
		return false
	}
	h.sends = append(h.sends, sent{from: from, to: to, at: h.w.Now(),
		latencyMin: h.w.Network().Link(from, to).Latency.Min, blocked: h.cut[[2]sim.NodeID{from, to}]})
	n.Send(to, &msg{id: len(h.sends) - 1})
	return true
}

func (h *netHarness) cutLink(a, b sim.NodeID) {
	if a != b {
		h.cut[[2]sim.NodeID{a, b}] = true
	}
}

func (h *netHarness) cutBetween(a, b []sim.NodeID) {
	for _, x := range a {
		for _, y := range b {
			h.cutLink(x, y)
			h.cutLink(y, x)
		}
	}
}

// deliveredCount counts the deliveries of each send.
func (h *netHarness) deliveredCount() []int {
	count := make([]int, len(h.sends))
	for _, d := range h.deliveries {
		count[d.id]++
	}
	return count
}

// drops returns the trace's drop records by reason.
func drops(w *sim.World) map[sim.DropReason]int {
	out := make(map[sim.DropReason]int)
	for _, r := range w.Trace().Recent() {
		if r.Kind == sim.RecDrop {
			out[sim.DropReason(r.B)]++
		}
	}
	return out
}

// drawLink draws a link configuration of any latency kind.
func drawLink(t *rapid.T, lossy bool) sim.LinkConfig {
	lo := time.Duration(rapid.Int64Range(0, int64(20*time.Millisecond)).Draw(t, "latency_min"))
	hi := lo + time.Duration(rapid.Int64Range(0, int64(50*time.Millisecond)).Draw(t, "latency_spread"))
	var c sim.LinkConfig
	switch rapid.IntRange(0, 2).Draw(t, "latency_kind") {
	case 0:
		c.Latency = sim.FixedDist(lo)
	case 1:
		c.Latency = sim.UniformDist(lo, hi)
	default:
		c.Latency = sim.ParetoDist(lo, hi, rapid.Float64Range(0.5, 3).Draw(t, "alpha"))
	}
	p := rapid.SampledFrom([]float64{0, 0, 0.1, 0.5, 1})
	if lossy {
		c.Loss = p.Draw(t, "loss")
	}
	c.Duplicate = p.Draw(t, "duplicate")
	c.Reorder = p.Draw(t, "reorder")
	c.ReorderDelay = sim.Duration(rapid.Int64Range(0, int64(30*time.Millisecond)).Draw(t, "reorder_delay"))
	return c
}

// TestNetworkPartitionsAndLatency drives random traffic through random
// partitions of every kind, heals, pauses, crashes and restarts, on a random
// link, and checks every delivery against the reference model: nothing
// crosses a cut link (at send or at delivery), nothing arrives earlier than
// the link's minimum latency, and nothing reaches a node that is not up.
// The run ends by healing, resetting the links, waking every node and
// sending on every link: after a heal, every link carries messages again.
func TestNetworkPartitionsAndLatency(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		link := drawLink(t, true)
		h := newNetHarness(rapid.IntRange(2, 5).Draw(t, "nodes"), &link, 1<<16)
		net := h.w.Network()
		node := rapid.Custom(func(t *rapid.T) sim.NodeID {
			return sim.NodeID(rapid.IntRange(0, len(h.nodes)-1).Draw(t, "node"))
		})
		group := rapid.SliceOfDistinct(node, func(id sim.NodeID) sim.NodeID { return id })
		for range rapid.IntRange(1, 60).Draw(t, "actions") {
			at := sim.Time(rapid.Int64Range(0, int64(2*time.Second)).Draw(t, "at"))
			var act func()
			switch kind := rapid.IntRange(0, 9).Draw(t, "action"); kind {
			case 0, 1, 2:
				from, to := node.Draw(t, "from"), node.Draw(t, "to")
				act = func() { h.send(from, to) }
			case 3:
				a, b := group.Draw(t, "a"), group.Draw(t, "b")
				act = func() { net.Partition(a, b); h.cutBetween(a, b) }
			case 4:
				a, b := node.Draw(t, "from"), node.Draw(t, "to")
				act = func() { net.PartitionOneWay(a, b); h.cutLink(a, b) }
			case 5:
				a := node.Draw(t, "isolated")
				act = func() { net.Isolate(a); h.cutBetween([]sim.NodeID{a}, ids(h.nodes)) }
			case 6:
				groups := rapid.SliceOfN(group, 2, 3).Draw(t, "groups")
				act = func() {
					net.Split(groups...)
					for i := range groups {
						for j := i + 1; j < len(groups); j++ {
							h.cutBetween(groups[i], groups[j])
						}
					}
				}
			case 7:
				act = func() { net.Heal(); clear(h.cut) }
			case 8:
				n, d := node.Draw(t, "paused"), time.Duration(rapid.Int64Range(1, int64(time.Second)).Draw(t, "pause"))
				act = func() { h.w.Node(n).Pause(d) }
			case 9:
				n, d := node.Draw(t, "crashed"), time.Duration(rapid.Int64Range(1, int64(time.Second)).Draw(t, "down"))
				act = func() {
					h.w.Node(n).Crash()
					h.w.After(d, h.w.Node(n).Restart)
				}
			}
			h.w.At(at, act)
		}
		final := sim.Time(4 * time.Second)
		firstFinal := 0
		h.w.At(final, func() {
			net.Heal()
			clear(h.cut)
			lossless := link
			lossless.Loss = 0
			for _, a := range h.nodes {
				for _, b := range h.nodes {
					require.NoError(t, net.SetLink(a.ID(), b.ID(), lossless))
				}
			}
			for _, n := range h.nodes {
				n.Restart()
				n.Resume()
			}
			firstFinal = len(h.sends)
			for _, a := range h.nodes {
				for _, b := range h.nodes {
					require.True(t, h.send(a.ID(), b.ID()), "after the heal %s is up", a.Name())
				}
			}
		})
		h.h(t, final)
		count := h.deliveredCount()
		for i := firstFinal; i < len(h.sends); i++ {
			s := h.sends[i]
			assert.Positive(t, count[i], "message %d (%d->%d) sent after the heal", i, s.from, s.to)
		}
	})
}

// h runs the harness a few seconds past final and checks every delivery.
func (h *netHarness) h(t *rapid.T, final sim.Time) {
	require.NoError(t, h.w.RunUntil(final+sim.Time(5*time.Second)).Err)
	for _, d := range h.deliveries {
		s := h.sends[d.id]
		require.Equal(t, s.from, d.from, "message %d", d.id)
		require.Equal(t, s.to, d.to, "message %d", d.id)
		require.False(t, s.blocked, "message %d crossed a partition: it was cut at send time", d.id)
		require.False(t, d.blocked, "message %d crossed a partition: it was cut at delivery time", d.id)
		require.GreaterOrEqual(t, d.at.Sub(s.at), s.latencyMin, "message %d arrived before the link's minimum latency", d.id)
		require.Equal(t, sim.Up, d.state, "message %d was delivered to a node that is %s", d.id, d.state)
	}
}

func ids(nodes []*sim.Node) []sim.NodeID {
	out := make([]sim.NodeID, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID()
	}
	return out
}

// TestNetworkPartitionKinds pins what each kind of partition cuts, on four
// nodes a, b, c, d, and that Heal restores every link.
func TestNetworkPartitionKinds(t *testing.T) {
	const a, b, c, d = 0, 1, 2, 3
	tests := []struct {
		name string
		cut  func(*sim.Network)
		// open lists the ordered pairs that still carry messages; every
		// other pair of distinct nodes is cut.
		open [][2]sim.NodeID
	}{
		{"partition {a b} | {c}", func(n *sim.Network) { n.Partition([]sim.NodeID{a, b}, []sim.NodeID{c}) },
			[][2]sim.NodeID{{a, b}, {b, a}, {a, d}, {d, a}, {b, d}, {d, b}, {c, d}, {d, c}}},
		{"one way a -> b", func(n *sim.Network) { n.PartitionOneWay(a, b) },
			[][2]sim.NodeID{{b, a}, {a, c}, {c, a}, {a, d}, {d, a}, {b, c}, {c, b}, {b, d}, {d, b}, {c, d}, {d, c}}},
		{"isolate a", func(n *sim.Network) { n.Isolate(a) },
			[][2]sim.NodeID{{b, c}, {c, b}, {b, d}, {d, b}, {c, d}, {d, c}}},
		{"split {a} | {b} | {c d}", func(n *sim.Network) { n.Split([]sim.NodeID{a}, []sim.NodeID{b}, []sim.NodeID{c, d}) },
			[][2]sim.NodeID{{c, d}, {d, c}}},
		{"bridge {a} | {b} via c", func(n *sim.Network) { n.Bridge([]sim.NodeID{a}, []sim.NodeID{b}, c) },
			[][2]sim.NodeID{{a, c}, {c, a}, {b, c}, {c, b}, {a, d}, {d, a}, {b, d}, {d, b}, {c, d}, {d, c}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			link := sim.LinkConfig{Latency: sim.FixedDist(time.Millisecond)}
			h := newNetHarness(4, &link, 1<<10)
			open := make(map[[2]sim.NodeID]bool)
			for _, p := range tc.open {
				open[p] = true
			}
			sendAll := func() {
				for _, x := range h.nodes {
					for _, y := range h.nodes {
						h.send(x.ID(), y.ID())
					}
				}
			}
			h.w.At(0, func() {
				tc.cut(h.w.Network())
				for _, x := range h.nodes {
					for _, y := range h.nodes {
						want := x != y && !open[[2]sim.NodeID{x.ID(), y.ID()}]
						assert.Equal(t, want, h.w.Network().Blocked(x.ID(), y.ID()), "Blocked(%s, %s)", x.Name(), y.Name())
					}
				}
				sendAll()
			})
			h.w.At(sim.Time(time.Second), func() { h.w.Network().Heal(); sendAll() })
			require.NoError(t, h.w.RunFor(2*time.Second).Err)

			count := h.deliveredCount()
			for i, s := range h.sends {
				pair := [2]sim.NodeID{s.from, s.to}
				want := 1
				if s.at == 0 && s.from != s.to && !open[pair] {
					want = 0
				}
				assert.Equal(t, want, count[i], "%s -> %s sent at %v", nodeName(int(s.from)), nodeName(int(s.to)), s.at)
			}
		})
	}
}

// TestNetworkOneWayPartitionBlocksOneDirection: after PartitionOneWay(a, b)
// every message from a to b is dropped at send, and every message from b to
// a (and between any other pair) still arrives.
func TestNetworkOneWayPartitionBlocksOneDirection(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.IntRange(2, 6).Draw(t, "nodes")
		a := sim.NodeID(rapid.IntRange(0, nodes-1).Draw(t, "a"))
		b := sim.NodeID(rapid.IntRange(0, nodes-2).Draw(t, "b"))
		if b >= a {
			b++ // distinct from a
		}
		link := drawLink(t, false)
		h := newNetHarness(nodes, &link, 1<<12)
		h.w.At(0, func() {
			h.w.Network().PartitionOneWay(a, b)
			for range rapid.IntRange(1, 20).Draw(t, "messages") {
				h.send(a, b)
				h.send(b, a)
				h.send(sim.NodeID(rapid.IntRange(0, nodes-1).Draw(t, "x")), sim.NodeID(rapid.IntRange(0, nodes-1).Draw(t, "y")))
			}
		})
		require.NoError(t, h.w.RunFor(10*time.Second).Err)
		count := h.deliveredCount()
		for i, s := range h.sends {
			if s.from == a && s.to == b {
				assert.Zero(t, count[i], "message %d crossed the one-way cut %d -> %d", i, a, b)
			} else {
				assert.Positive(t, count[i], "message %d (%d -> %d) was lost", i, s.from, s.to)
			}
		}
		assert.Positive(t, drops(h.w)[sim.DropPartition], "the cut direction drops")
	})
}

// TestNetworkNoLossMeansEveryMessageArrives: with loss 0 and no partition,
// every message arrives, under any latency, reordering and pauses; exactly
// once without duplication, at most twice with it.
func TestNetworkNoLossMeansEveryMessageArrives(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		link := drawLink(t, false)
		nodes := rapid.IntRange(1, 5).Draw(t, "nodes")
		h := newNetHarness(nodes, &link, 1<<12)
		node := rapid.IntRange(0, nodes-1)
		for range rapid.IntRange(1, 100).Draw(t, "actions") {
			at := sim.Time(rapid.Int64Range(0, int64(time.Second)).Draw(t, "at"))
			if rapid.IntRange(0, 9).Draw(t, "pause?") == 0 {
				n, d := sim.NodeID(node.Draw(t, "paused")), time.Duration(rapid.Int64Range(1, int64(time.Second)).Draw(t, "pause"))
				h.w.At(at, func() { h.w.Node(n).Pause(d) })
				continue
			}
			from, to := sim.NodeID(node.Draw(t, "from")), sim.NodeID(node.Draw(t, "to"))
			h.w.At(at, func() { h.send(from, to) })
		}
		require.NoError(t, h.w.RunFor(10*time.Second).Err)
		for i, c := range h.deliveredCount() {
			require.GreaterOrEqual(t, c, 1, "message %d was lost", i)
			if link.Duplicate == 0 {
				require.Equal(t, 1, c, "message %d was duplicated", i)
			} else {
				require.LessOrEqual(t, c, 2, "message %d", i)
			}
		}
		for _, d := range h.deliveries {
			require.Equal(t, sim.Up, d.state)
		}
	})
}

// TestNetworkPauseDefersAndCrashDrops pins the receiver side with a fixed
// latency: a message that arrives while its receiver is paused is delivered
// when the pause ends; one that arrives while the receiver is crashed is
// dropped and never delivered, not even after the restart; one that arrives
// after the restart is delivered on time.
func TestNetworkPauseDefersAndCrashDrops(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const latency = 10 * time.Millisecond
		ms := func(label string) sim.Time {
			return sim.Time(rapid.Int64Range(0, 200).Draw(t, label)) * sim.Time(time.Millisecond)
		}
		link := sim.LinkConfig{Latency: sim.FixedDist(latency)}
		h := newNetHarness(2, &link, 1<<12)
		recv := h.nodes[1]
		crash := rapid.Bool().Draw(t, "crash")
		start, length := ms("start"), ms("length")+sim.Time(time.Millisecond)
		if crash {
			h.w.At(start, recv.Crash)
			h.w.At(start+length, recv.Restart)
		} else {
			h.w.At(start, func() { recv.Pause(time.Duration(length)) })
		}
		for range rapid.IntRange(1, 20).Draw(t, "messages") {
			h.w.At(ms("send"), func() { h.send(0, 1) })
		}
		require.NoError(t, h.w.RunFor(time.Second).Err)

		count := h.deliveredCount()
		at := make(map[int]sim.Time)
		for _, d := range h.deliveries {
			at[d.id] = d.at
		}
		for i, s := range h.sends {
			arrival := s.at.Add(latency)
			inWindow := arrival >= start && arrival < start+length
			switch {
			case crash && inWindow:
				assert.Zero(t, count[i], "message %d arrived at %v while the receiver was down", i, arrival)
			case inWindow:
				require.Equal(t, 1, count[i], "message %d", i)
				assert.Equal(t, start+length, at[i], "message %d arrived during the pause and waits for the resume", i)
			default:
				require.Equal(t, 1, count[i], "message %d", i)
				assert.Equal(t, arrival, at[i], "message %d", i)
			}
		}
	})
}

// TestNetworkInFlightBound: a link holds at most its in-flight bound of
// messages; sends beyond it are dropped as overflow, and the bound frees up
// as messages arrive.
func TestNetworkInFlightBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bound := rapid.IntRange(1, 20).Draw(t, "bound")
		burst := rapid.IntRange(1, 50).Draw(t, "burst")
		link := sim.LinkConfig{Latency: sim.UniformDist(time.Millisecond, 5*time.Millisecond), InFlightMax: bound}
		h := newNetHarness(2, &link, 1<<12)
		for round := range 2 {
			h.w.At(sim.Time(round)*sim.Time(time.Second), func() {
				for range burst {
					h.send(0, 1)
					require.LessOrEqual(t, h.w.Network().InFlight(0, 1), bound)
				}
			})
		}
		require.NoError(t, h.w.RunFor(3*time.Second).Err)
		assert.Len(t, h.deliveries, 2*min(burst, bound), "each burst delivers up to the bound")
		assert.Equal(t, 2*max(burst-bound, 0), drops(h.w)[sim.DropOverflow], "the excess is dropped as overflow")
		assert.Zero(t, h.w.Network().InFlight(0, 1), "every message left the wire")
	})
}

// TestNetworkLossAndDuplicationRates checks the link probabilities on many
// messages: a loss of 0.3 loses roughly 30%, a duplication of 0.2 duplicates
// roughly 20% of the rest. The tolerance is many standard deviations wide
// and the seed is fixed, so the test cannot flake.
func TestNetworkLossAndDuplicationRates(t *testing.T) {
	const messages = 20000
	link := sim.LinkConfig{Latency: sim.FixedDist(time.Millisecond), Loss: 0.3, Duplicate: 0.2, InFlightMax: messages * 2}
	h := newNetHarness(2, &link, messages*4)
	h.w.At(0, func() {
		for range messages {
			h.send(0, 1)
		}
	})
	require.NoError(t, h.w.RunFor(time.Second).Err)
	lost := drops(h.w)[sim.DropLoss]
	assert.InDelta(t, 0.3*messages, lost, 600, "lost")
	dups := len(h.deliveries) - (messages - lost)
	assert.InDelta(t, 0.2*float64(messages-lost), dups, 500, "duplicated")
}

func TestLinkConfigValidate(t *testing.T) {
	ok := sim.LinkConfig{Latency: sim.UniformDist(time.Millisecond, 2*time.Millisecond)}
	tests := []struct {
		name  string
		edit  func(*sim.LinkConfig)
		field string // "" means valid
	}{
		{"valid", func(*sim.LinkConfig) {}, ""},
		{"no kind", func(c *sim.LinkConfig) { c.Latency.Kind = "" }, "latency.kind"},
		{"unknown kind", func(c *sim.LinkConfig) { c.Latency.Kind = "normal" }, "latency.kind"},
		{"negative min", func(c *sim.LinkConfig) { c.Latency.Min = -1 }, "latency.min"},
		{"max below min", func(c *sim.LinkConfig) { c.Latency.Max = 0 }, "latency.max"},
		{"pareto without alpha", func(c *sim.LinkConfig) { c.Latency = sim.ParetoDist(1, 2, 0) }, "latency.alpha"},
		{"loss above 1", func(c *sim.LinkConfig) { c.Loss = 1.5 }, "loss"},
		{"negative duplicate", func(c *sim.LinkConfig) { c.Duplicate = -0.1 }, "duplicate"},
		{"NaN reorder", func(c *sim.LinkConfig) { c.Reorder = nanValue() }, "reorder"},
		{"negative reorder delay", func(c *sim.LinkConfig) { c.ReorderDelay = -1 }, "reorder_delay"},
		{"negative bound", func(c *sim.LinkConfig) { c.InFlightMax = -1 }, "in_flight_max"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Validate()
			if tc.field == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.field+":")
		})
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

func TestNewRejectsAnInvalidLink(t *testing.T) {
	bad := sim.LinkConfig{Latency: sim.UniformDist(5, 1)}
	assert.PanicsWithValue(t, "sim: New: Config.Link.latency.max: 1ns is below min 5ns", func() {
		sim.New(sim.Config{Link: &bad})
	})
}

func TestSendToAnUnknownNodePanics(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("a", nil)
	w.At(0, func() {
		assert.PanicsWithValue(t, fmt.Sprintf("sim: invariant known-node: a sent to node id %d, which does not exist", 1),
			func() { n.Send(1, "x") })
	})
	require.NoError(t, w.RunFor(time.Second).Err)
}

// TestSetLinkReusesConfigurations: a nemesis that flips links between a
// few configurations for a long run must not exhaust the link table.
func TestSetLinkReusesConfigurations(t *testing.T) {
	w := sim.New(sim.Config{Limits: sim.Limits{Faults: 1 << 20}})
	a, b := w.AddNode("a", nil), w.AddNode("b", nil)
	slow := sim.LinkConfig{Latency: sim.FixedDist(time.Second)}
	lossy := sim.LinkConfig{Latency: sim.FixedDist(time.Millisecond), Loss: 0.5}
	for i := range 100_000 {
		cfg := slow
		if i%2 == 1 {
			cfg = lossy
		}
		require.NoError(t, w.Network().SetLink(a.ID(), b.ID(), cfg))
		if i%1000 == 999 {
			w.Network().ResetLinks()
		}
	}
	assert.Equal(t, sim.DefaultLink, w.Network().Link(a.ID(), b.ID()), "the last step was a reset")
	require.NoError(t, w.Network().SetLink(a.ID(), b.ID(), lossy))
	assert.Equal(t, lossy, w.Network().Link(a.ID(), b.ID()))
	assert.Equal(t, sim.DefaultLink, w.Network().Link(b.ID(), a.ID()), "links are directed")
}

func TestNetworkRejectsUnknownNodes(t *testing.T) {
	w := sim.New(sim.Config{})
	for i := range 3 {
		w.AddNode(nodeName(i), nil)
	}
	net := w.Network()
	const bad = "sim: invariant known-node: link 0 -> 5 names a node that does not exist (3 nodes)"
	assert.PanicsWithValue(t, bad, func() { net.Partition([]sim.NodeID{0}, []sim.NodeID{5}) })
	assert.PanicsWithValue(t, bad, func() { net.PartitionOneWay(0, 5) })
	assert.PanicsWithValue(t, bad, func() { net.Blocked(0, 5) })
	assert.Panics(t, func() { net.Isolate(-1) })
	for a := range sim.NodeID(3) {
		for b := range sim.NodeID(3) {
			assert.False(t, net.Blocked(a, b), "a rejected call cut nothing: %d -> %d", a, b)
		}
	}
}
