package reports

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/tune"
)

// A grid with an election-timeout axis draws a line and a heat map per
// renew interval and election timeout, so that no two configurations share
// a cell; without it, one per renew interval, named as before.
func TestTuneSeriesSplitByElectionTimeout(t *testing.T) {
	withElection := func(res tune.Result, elections ...string) tune.Result {
		var out []tune.ConfigResult
		for _, c := range res.Configs {
			for _, e := range elections {
				c := c
				c.ElectionTimeout = e
				c.ElectionTimeoutNs, _ = time.ParseDuration(e)
				out = append(out, c)
			}
		}
		res.Configs = out
		return res
	}
	tests := []struct {
		name   string
		res    tune.Result
		series []string
	}{
		{"no election axis", sampleTune(), []string{"renew ttl/3", "renew ttl/6"}},
		{"election axis", withElection(sampleTune(), "500ms", "2s"), []string{"renew ttl/3 · election 500ms",
			"renew ttl/3 · election 2s", "renew ttl/6 · election 500ms", "renew ttl/6 · election 2s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			series, _ := tuneAxes(tt.res)
			assert.Equal(t, tt.series, series)
			lines := newFailoverLines(tt.res)
			require.Len(t, lines.Series, len(tt.series))
			for i, s := range lines.Series {
				assert.Equal(t, tt.series[i], s.Name)
			}
			for _, g := range newHeatGroups(tt.res) {
				require.Len(t, g.Maps, len(tt.series), g.Metric)
				for i, m := range g.Maps {
					assert.Equal(t, tt.series[i], m.Title)
					cells := map[[2]float64]bool{} // looked up, never iterated
					for _, c := range m.Cells {
						assert.False(t, cells[[2]float64{c.X, c.Y}], "%s: two configurations in one cell", m.Title)
						cells[[2]float64{c.X, c.Y}] = true
					}
				}
			}
		})
	}
}
