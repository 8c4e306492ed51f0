package sim

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// bytes returns the memory the pair table's states take.
func (t *pairTable) bytes() int {
	return len(t.dense)*8 + len(t.slots)*16
}

// TestPairTableMemoryFollowsPairs runs worlds where two pairs of nodes talk
// and every other node is silent. The pair table of a large world holds
// only the pairs used, the same few hundred bytes whatever the node count,
// and the run allocates nothing like the nodes² of a dense table (150 MB
// for 5,000 nodes).
func TestPairTableMemoryFollowsPairs(t *testing.T) {
	tests := []struct {
		nodes     int
		wantBytes int
	}{
		{nodes: 100, wantBytes: 100 * 100 * 8}, // small: dense
		{nodes: 129, wantBytes: 16 * 16},       // the smallest sparse world
		{nodes: 1000, wantBytes: 16 * 16},
		{nodes: 5000, wantBytes: 16 * 16},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.nodes), func(t *testing.T) {
			w := New(Config{Seed: 3})
			for i := range tt.nodes {
				w.AddNode("n"+strconv.Itoa(i), nil)
			}
			// 0 and 1 ping-pong; 2 sends to 3, which counts what it gets.
			w.Node(0).Handle(func(from NodeID, _ any) { w.Node(0).Send(from, 0) })
			w.Node(1).Handle(func(from NodeID, _ any) { w.Node(1).Send(from, 0) })
			got := 0
			w.Node(3).Handle(func(NodeID, any) { got++ })
			var tick func()
			tick = func() {
				w.Node(2).Send(3, 0)
				w.Node(2).SetTimer(10*time.Millisecond, tick)
			}
			w.Node(2).SetTimer(0, tick)
			w.Node(0).Send(1, 0)

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			require.NoError(t, w.RunFor(time.Second).Err)
			runtime.ReadMemStats(&after)

			assert.Equal(t, 1, w.net.InFlight(0, 1)+w.net.InFlight(1, 0), "the ping-pong's one message")
			assert.GreaterOrEqual(t, got, 99, "2 -> 3 delivers every 10 ms")
			if tt.nodes > denseMax {
				assert.Equal(t, 3, w.net.pairs.used, "the sparse table holds 0->1, 1->0 and 2->3")
			}
			assert.Equal(t, tt.wantBytes, w.net.pairs.bytes())
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated by the run")
		})
	}
}

// TestPairTableMatchesReference drives the pair table with random sequences
// of the network's operations on it (set a link, cut, restore, send,
// deliver, reset every link, heal, add nodes, in worlds that start dense or
// sparse and may turn sparse midway) against a reference map that holds
// every pair's state, absent meaning the zero state. After each operation
// the pair it touched and a random pair read the same from both, and the
// sparse table stays at most 3/4 full and holds no pair that never left the
// zero state.
func TestPairTableMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tab pairTable
		ref := map[[2]NodeID]pairState{}
		var touched [][2]NodeID // the pairs ever used, in order: drawn again to revisit them
		nodes := rapid.IntRange(1, 2*denseMax).Draw(t, "nodes")
		tab.resize(nodes)

		// pick draws a pair: often one used before, else any pair.
		pick := func() (NodeID, NodeID) {
			if len(touched) > 0 && rapid.Bool().Draw(t, "again") {
				p := touched[rapid.IntRange(0, len(touched)-1).Draw(t, "which")]
				return p[0], p[1]
			}
			from := NodeID(rapid.IntRange(0, nodes-1).Draw(t, "from"))
			return from, NodeID(rapid.IntRange(0, nodes-1).Draw(t, "to"))
		}
		// state reads the pair's state from the table, as the network does.
		state := func(from, to NodeID) pairState {
			if s := tab.find(from, to); s != nil {
				return *s
			}
			return pairState{}
		}
		check := func(from, to NodeID) {
			key := [2]NodeID{from, to}
			require.Equal(t, ref[key], state(from, to), "pair %d -> %d", from, to)
			require.Equal(t, ref[key].blocked, tab.blocked(from, to), "pair %d -> %d", from, to)
		}
		update := func(from, to NodeID, f func(*pairState)) {
			key := [2]NodeID{from, to}
			if _, ok := ref[key]; !ok {
				touched = append(touched, key)
			}
			s := ref[key]
			f(&s)
			ref[key] = s
		}

		for range rapid.IntRange(1, 200).Draw(t, "ops") {
			from, to := pick()
			switch op := rapid.IntRange(0, 7).Draw(t, "op"); op {
			case 0: // SetLink, the default configuration included
				idx := uint16(rapid.IntRange(0, 3).Draw(t, "link"))
				tab.setLink(from, to, idx)
				update(from, to, func(s *pairState) { s.link = idx })
			case 1, 2: // a partition cuts or restores the pair
				cut := op == 1
				tab.setBlocked(from, to, cut)
				update(from, to, func(s *pairState) { s.blocked = cut })
			case 3: // send: the network counts the copy
				tab.get(from, to).inFlight++
				update(from, to, func(s *pairState) { s.inFlight++ })
			case 4: // deliver: only a pair with a message in flight
				if ref[[2]NodeID{from, to}].inFlight == 0 {
					continue
				}
				tab.find(from, to).inFlight--
				update(from, to, func(s *pairState) { s.inFlight-- })
			case 5:
				tab.resetLinks()
				for k, s := range ref {
					s.link = 0
					ref[k] = s
				}
			case 6:
				tab.heal()
				for k, s := range ref {
					s.blocked = false
					ref[k] = s
				}
			case 7: // nodes join the world
				nodes += rapid.IntRange(1, denseMax).Draw(t, "joined")
				tab.resize(nodes)
			}
			check(from, to)
			from, to = pick()
			check(from, to)
			if tab.nodes > denseMax {
				require.LessOrEqual(t, 4*tab.used, 3*len(tab.slots), "the sparse table is more than 3/4 full")
				require.LessOrEqual(t, tab.used, len(ref), "the sparse table holds a pair never used")
			} else {
				require.Len(t, tab.dense, nodes*nodes)
			}
		}
		for _, p := range touched {
			check(p[0], p[1])
		}
	})
}

// TestPairTableUnknownNode holds both tables to the known-node invariant:
// an id beyond the world panics instead of naming another pair.
func TestPairTableUnknownNode(t *testing.T) {
	for _, nodes := range []int{3, denseMax + 1} {
		var tab pairTable
		tab.resize(nodes)
		bad := "sim: invariant known-node: link 0 -> " + strconv.Itoa(nodes) +
			" names a node that does not exist (" + strconv.Itoa(nodes) + " nodes)"
		assert.PanicsWithValue(t, bad, func() { tab.get(0, NodeID(nodes)) })
		assert.PanicsWithValue(t, bad, func() { tab.find(0, NodeID(nodes)) })
		assert.Panics(t, func() { tab.find(-1, 0) })
	}
}
