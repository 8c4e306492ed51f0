package checker

import (
	"fmt"
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
