package checker

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/history"
)

// A store whose grants are not acquire replies (the lessor: grant, create
// the key, keep alive) shows its grants as beliefs: the failover ends at
// the next holder's belief, or at the cut holder's own belief regained
// after the cut, with the same definition as leasesim's acquire replies.
func TestMeasureFailoverFromBeliefs(t *testing.T) {
	// h1 believes token 5 from 0 to 5s; a fault cuts it off at 2s; h2
	// believes token 9 from 7.5s.
	lessor := func() *hb {
		b := newHistory().belief("h1", "lock", 5, at(0), at(5000)).belief("h2", "lock", 9, at(7500), at(20_000))
		b.h.Spec = "lessor"
		return b
	}
	tests := []struct {
		name       string
		h          *hb
		want       []time.Duration
		unresolved int
	}{
		{"no fault", lessor(), nil, 0},
		{"holder crash: the next holder's belief", lessor().fault(history.FaultCrash, "h1", at(2000), at(30_000)),
			[]time.Duration{5500 * time.Millisecond}, 0},
		{"holder isolated, regains its own belief first", lessor().fault(history.FaultIsolate, "h1", at(2000), at(6000)).
			belief("h1", "lock", 5, at(6500), at(7000)), []time.Duration{4500 * time.Millisecond}, 0},
		{"another holder crashed", lessor().fault(history.FaultCrash, "h3", at(2000), at(30_000)), nil, 0},
		{"nobody believes again", func() *hb {
			b := newHistory().belief("h1", "lock", 5, at(0), at(5000)).fault(history.FaultCrash, "h1", at(2000), at(30_000))
			b.h.Spec = "lessor"
			return b
		}(), nil, 1},
		{"a belief before the cut does not end it", lessor().belief("h3", "lock", 7, at(1000), at(1500)).
			fault(history.FaultCrash, "h1", at(2000), at(30_000)), []time.Duration{5500 * time.Millisecond}, 0},
		// On leasesim's store a belief's token comes from an acquire: the
		// grant is the acquire, processed at the grantor, not the belief
		// that follows its reply.
		{"a token an acquire issued is the acquire's", newHistory().
			acquire("h1", "lock", 1, at(0)).belief("h1", "lock", 1, at(0), at(5000)).
			acquire("h2", "lock", 2, at(7500)).belief("h2", "lock", 2, at(7600), at(9000)).
			fault(history.FaultCrash, "h1", at(2000), at(30_000)), []time.Duration{5500 * time.Millisecond}, 0},
		// A history file's windows need not be in order of start: the
		// failover runs from the earliest cut within the belief.
		{"fault windows out of order", lessor().fault(history.FaultIsolate, "h1", at(3000), at(4000)).
			fault(history.FaultIsolate, "h1", at(2000), at(2500)), []time.Duration{5500 * time.Millisecond}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Measure(tt.h.build())
			assert.Equal(t, tt.want, m.FailoverSamples)
			assert.Equal(t, tt.unresolved, m.FailoversUnresolved)
		})
	}
}

// On a replicated store (History.Leaders) a holder is cut off when it
// reaches fewer than a quorum of the members: one member's isolation or a
// one-way partition to one member cuts no one, a partition cuts the holders
// on a minority's side, and a member's crash is no holder's failure unless
// the member holds a lease itself.
func TestCutsFromAReplicatedStore(t *testing.T) {
	replicated := func() *hb {
		b := newHistory()
		b.h.Leaders = []history.LeaderTerm{{Server: "g1", Members: []string{"g1", "g2", "g3"}, Term: 1, Start: 0, End: at(120_000)}}
		return b
	}
	tests := []struct {
		name string
		h    *hb
		want []cut
	}{
		{"a holder's crash", replicated().fault(history.FaultCrash, "h1", at(1000), at(2000)),
			[]cut{{start: at(1000), nodes: []string{"h1"}}}},
		{"a holder's isolation", replicated().fault(history.FaultIsolate, "h1", at(1000), at(2000)),
			[]cut{{start: at(1000), nodes: []string{"h1"}}}},
		{"a member's isolation: a quorum is left", replicated().fault(history.FaultIsolate, "g1", at(1000), at(2000)), nil},
		{"a member's crash", replicated().fault(history.FaultCrash, "g1", at(1000), at(2000)), nil},
		{"one way from a holder to one member", replicated().
			faultDetail(history.FaultPartitionOneWay, "h1", "g1", "", at(1000), at(2000)), nil},
		{"a partition: the holder with a minority", replicated().
			faultDetail(history.FaultPartition, "h1", "g3", "[h1 g1] | [g2 g3 h2]", at(1000), at(2000)),
			[]cut{{start: at(1000), nodes: []string{"h1"}}}},
		{"a partition: the holder with a majority", replicated().
			faultDetail(history.FaultPartition, "h1", "g3", "[h1 g1 g2] | [g3 h2]", at(1000), at(2000)),
			[]cut{{start: at(1000), nodes: []string{"h2"}}}},
		{"a split: a member bystander is reached from both sides", replicated().
			faultDetail(history.FaultSplit, "h1", "g3", "[h1 g1] | [g3 h2]", at(1000), at(2000)), nil},
		// A member that holds the lease itself: a raft node's leadership.
		{"a leading member's crash", replicated().belief("g1", "leader", 1, 0, at(1000)).
			fault(history.FaultCrash, "g1", at(1000), at(2000)), []cut{{start: at(1000), nodes: []string{"g1"}}}},
		{"a leading member's isolation", replicated().belief("g1", "leader", 1, 0, at(1000)).
			fault(history.FaultIsolate, "g1", at(1000), at(2000)), []cut{{start: at(1000), nodes: []string{"g1"}}}},
		{"a leading member with a minority", replicated().belief("g1", "leader", 1, 0, at(1000)).
			faultDetail(history.FaultPartition, "h1", "g3", "[h1 g1] | [g2 g3 h2]", at(1000), at(2000)),
			[]cut{{start: at(1000), nodes: []string{"h1", "g1"}}}},
		{"a leading member with a majority", replicated().belief("g1", "leader", 1, 0, at(1000)).
			faultDetail(history.FaultPartition, "h1", "g3", "[h1 g1 g2] | [g3 h2]", at(1000), at(2000)),
			[]cut{{start: at(1000), nodes: []string{"h2"}}}},
		{"members without terms (History.Members): the leader with a minority", func() *hb {
			b := newHistory()
			b.h.Grantor, b.h.Members = "g1", []string{"g1", "g2", "g3"}
			return b.belief("g1", "leader", 1, 0, at(1000))
		}().faultDetail(history.FaultPartition, "g1", "g3", "[g1 c1] | [g2 g3 c2]", at(1000), at(2000)),
			[]cut{{start: at(1000), nodes: []string{"g1", "c1"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, cutsFromStore(tt.h.build()))
		})
	}
}

// On a single grantor the cuts are what they were when only the grantor
// counted (grantorCuts, the earlier rule, kept here as the reference).
func TestCutsFromASingleGrantorAreTheGrantors(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := &history.History{Grantor: rapid.SampledFrom([]string{"g", ""}).Draw(t, "grantor")}
		nodes := []string{"g", "h1", "h2", "h3"}
		for range rapid.IntRange(0, 12).Draw(t, "windows") {
			kind := rapid.SampledFrom([]string{history.FaultCrash, history.FaultIsolate, history.FaultPartitionOneWay,
				history.FaultPartition, history.FaultSplit, history.FaultPause}).Draw(t, "kind")
			w := history.FaultWindow{Kind: kind, Start: history.Time(rapid.Int64Range(0, 50).Draw(t, "start"))}
			w.End = w.Start + 5
			a := rapid.SampledFrom(nodes).Draw(t, "node")
			w.Nodes = []string{a}
			switch kind {
			case history.FaultPartitionOneWay:
				others := slices.DeleteFunc(slices.Clone(nodes), func(n string) bool { return n == a })
				w.Nodes = append(w.Nodes, rapid.SampledFrom(others).Draw(t, "peer"))
			case history.FaultPartition, history.FaultSplit:
				perm := rapid.Permutation(nodes).Draw(t, "order")
				k := rapid.IntRange(1, len(perm)-1).Draw(t, "first group")
				rest := perm[k:]
				if kind == history.FaultSplit {
					rest = rest[:rapid.IntRange(1, len(rest)).Draw(t, "second group")] // the others stand by
				}
				w.Detail = "[" + strings.Join(perm[:k], " ") + "] | [" + strings.Join(rest, " ") + "]"
			}
			h.Faults = append(h.Faults, w)
		}
		require.Equal(t, grantorCuts(h), cutsFromStore(h))
	})
}

// grantorCuts is the rule before replicated stores counted: a holder's
// crash or isolation, the grantor's isolation (everyone), a one-way
// partition between a holder and the grantor, a partition that puts a node
// in another group than the grantor's.
func grantorCuts(h *history.History) []cut {
	var cuts []cut
	for _, w := range h.Faults {
		c := cut{start: w.Start}
		switch w.Kind {
		case history.FaultCrash:
			if w.Node() != h.Grantor {
				c.nodes = []string{w.Node()}
			}
		case history.FaultIsolate:
			c.all = w.Node() == h.Grantor
			if !c.all {
				c.nodes = []string{w.Node()}
			}
		case history.FaultPartitionOneWay:
			switch h.Grantor {
			case w.Node():
				c.nodes = []string{w.Peer()}
			case w.Peer():
				c.nodes = []string{w.Node()}
			}
		case history.FaultPartition, history.FaultSplit, history.FaultBridge:
			groups := parseGroups(w.Detail)
			mine := slices.IndexFunc(groups, func(g []string) bool { return slices.Contains(g, h.Grantor) })
			for i, g := range groups {
				if mine >= 0 && i != mine {
					c.nodes = append(c.nodes, g...)
				}
			}
		}
		if c.all || len(c.nodes) > 0 {
			cuts = append(cuts, c)
		}
	}
	slices.SortStableFunc(cuts, func(a, b cut) int { return cmp.Compare(a.start, b.start) })
	return cuts
}
