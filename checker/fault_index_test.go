package checker

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/history"
)

// The index answers as a scan of every window does, whatever the windows'
// order, overlaps and kinds.
func TestNodeWindowsMatchesAScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := &history.History{}
		for range rapid.IntRange(0, 20).Draw(t, "windows") {
			start := history.Time(rapid.Int64Range(0, 50).Draw(t, "start"))
			h.Faults = append(h.Faults, history.FaultWindow{
				Kind:  rapid.SampledFrom([]string{history.FaultPause, history.FaultCrash}).Draw(t, "kind"),
				Nodes: []string{fmt.Sprintf("n%d", rapid.IntRange(1, 3).Draw(t, "node"))},
				Start: start, End: start + history.Time(rapid.Int64Range(0, 20).Draw(t, "length")),
			})
		}
		x := indexWindows(h, history.FaultPause)
		for range 20 {
			node := fmt.Sprintf("n%d", rapid.IntRange(1, 4).Draw(t, "asked node"))
			at := history.Time(rapid.Int64Range(-1, 75).Draw(t, "at"))
			want := false
			for _, w := range h.Faults {
				if w.Kind == history.FaultPause && w.Node() == node && w.Start <= at && at <= w.End {
					want = true
				}
			}
			require.Equal(t, want, x.at(node, at), "%s at %d", node, at)
		}
	})
}

// firstCut, which searches the cuts in order of start, finds the cut a scan
// of every cut in that order finds, whatever the windows' order and kinds.
func TestFirstCutMatchesAScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := &history.History{Grantor: "g"}
		for range rapid.IntRange(0, 20).Draw(t, "windows") {
			start := history.Time(rapid.Int64Range(0, 50).Draw(t, "start"))
			node := rapid.SampledFrom([]string{"g", "h1", "h2", "h3"}).Draw(t, "node")
			h.Faults = append(h.Faults, history.FaultWindow{
				Kind:  rapid.SampledFrom([]string{history.FaultCrash, history.FaultIsolate, history.FaultPause}).Draw(t, "kind"),
				Nodes: []string{node}, Start: start, End: start + 5,
			})
		}
		cuts := cutsFromStore(h)
		for range 20 {
			start := history.Time(rapid.Int64Range(-1, 60).Draw(t, "belief start"))
			b := &history.BeliefInterval{Holder: rapid.SampledFrom([]string{"h1", "h2", "h3", "h4"}).Draw(t, "holder"),
				Start: start, End: start + history.Time(rapid.Int64Range(0, 20).Draw(t, "belief length"))}
			var want history.Time
			wantOK := false
			for _, c := range cuts {
				if c.start >= b.Start && c.start <= b.End && c.cuts(b.Holder) {
					want, wantOK = c.start, true
					break
				}
			}
			got, ok := firstCut(cuts, b)
			require.Equal(t, wantOK, ok, "%+v", b)
			require.Equal(t, want, got, "%+v", b)
		}
		require.True(t, slices.IsSortedFunc(cuts, func(a, b cut) int { return cmp.Compare(a.start, b.start) }), "cuts in order of start")
	})
}
