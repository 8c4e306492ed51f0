package reports

import (
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/tune"
)

// tuneJSON, when set, makes the tune browser test render that tune.json
// (as `simrun tune --out` writes it) instead of the crafted sample. The
// README's docs/img/tune.png is made so, from `make tune-example`:
//
//	LEASESIM_SCREENSHOTS=docs/img go test ./reports -run TestTuneReportInBrowser \
//	    -args -tune-json "$PWD/out/tune/steady-batch/tune.json"
//
// (which also leaves tune-full.png there, the whole page, to delete).
var tuneJSON = flag.String("tune-json", "", "render this tune.json in TestTuneReportInBrowser")

// tuneFacts is what the page's own DOM says about the drawn plots.
type tuneFacts struct {
	ScatterWidth, LinesWidth float64
	Points, ParetoPoints     int
	Rings                    int
	Series                   []string
	HeatMaps                 int
	HeatCells                int
	Rows                     int
	Explanation              string
}

const tuneFactsJS = `(() => {
  const box = (sel) => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect().width : 0; };
  return {
    ScatterWidth: box("#scatter svg"), LinesWidth: box("#failover-ttl svg"),
    Points: document.querySelectorAll("#scatter circle.pt").length,
    ParetoPoints: document.querySelectorAll("#scatter circle.pt.pareto").length,
    Rings: document.querySelectorAll("#scatter circle.choice-ring").length,
    Series: [...document.querySelectorAll("#failover-ttl g.series")].map(g => g.dataset.renew),
    HeatMaps: document.querySelectorAll("svg.heat").length,
    HeatCells: document.querySelectorAll("svg.heat rect.cell").length,
    Rows: document.querySelectorAll("table.tune tbody tr").length,
    Explanation: document.getElementById("explanation").innerText,
  };
})()`

// The tune page in a real browser: it loads from file:// with no errors,
// and its plots are there: a point per config that ran (the frontier and
// the recommendation marked), a line per renew interval, a heat map per
// metric and renew interval, a row per config.
func TestTuneReportInBrowser(t *testing.T) {
	ctx := browser(t)
	res := sampleTune()
	if *tuneJSON != "" {
		raw, err := os.ReadFile(*tuneJSON)
		require.NoError(t, err)
		res = tune.Result{}
		require.NoError(t, json.Unmarshal(raw, &res))
	}
	paths, err := WriteTuneDir(t.TempDir(), res)
	require.NoError(t, err)
	problems := watchPage(t, ctx)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate("file://"+paths[1]),
		chromedp.WaitVisible(chromedp.CSS("#scatter svg")),
	))
	facts, err := chromedp.Run(ctx, chromedp.Evaluate[tuneFacts](tuneFactsJS))
	require.NoError(t, err)

	renews, ttls := tuneAxes(res)
	ran, pareto, recommended := 0, 0, 0
	for _, c := range res.Configs {
		if c.Valid && c.Runs > 0 {
			ran++
		}
		if c.Pareto {
			pareto++
		}
		if c.Recommended {
			recommended++
		}
	}
	assert.Greater(t, facts.ScatterWidth, 300.0, "the scatter plot has a real size")
	assert.Greater(t, facts.LinesWidth, 300.0)
	assert.Equal(t, ran, facts.Points, "a point per config that ran")
	assert.Equal(t, pareto, facts.ParetoPoints, "the frontier is marked")
	assert.Equal(t, recommended, facts.Rings, "the recommendation is ringed")
	require.Len(t, facts.Series, len(renews), "a line per renew interval")
	assert.Equal(t, 3*len(renews), facts.HeatMaps, "a heat map per metric and renew interval")
	assert.Equal(t, 3*len(res.Configs), facts.HeatCells, "a cell per config in each metric's maps")
	assert.Equal(t, len(res.Configs), facts.Rows, "a row per config")
	assert.Contains(t, facts.Explanation, res.Explanation)
	assert.NotEmpty(t, ttls)

	// The README's picture: the recommendation, the plots and the heat
	// maps, in a window tall enough to hold them.
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 1320)))
	top, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	saveScreenshot(t, "tune.png", top)
	page, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	require.NoError(t, err)
	saveScreenshot(t, "tune-full.png", page)
	assert.Empty(t, problems.list(), "the page reports no errors")
}
