package reports

import (
	"fmt"
	"html/template"
	"io"
	"os"

	"github.com/leasesim/leasesim/tune"
)

// The files of a tuning run's output directory.
const (
	TuneJSONFile = "tune.json"
	TuneHTMLFile = "tune.html"
)

// tunePage is the view model of tune.html.
type tunePage struct {
	R          tune.Result
	Glance     string
	Goal       string
	Verdict    string // "recommended", "none", "violated" or "partial"
	Columns    []string
	Rows       []tuneRow
	Scatter    scatterPlot
	Lines      linePlot
	Heat       []heatGroup
	Violations []tuneViolation
	Unknown    []tuneUnknown
	Seeds      int
	Failing    string // "3 runs"
	CSS        template.CSS
	MarkPareto string
	MarkChoice string
}

type tuneViolation struct {
	Label string
	tune.Violation
}

type tuneUnknown struct {
	Label, Counts string
}

// WriteTuneHTML writes tune.html for a tuning result to w: one
// self-contained page (inline CSS and SVG, no script, no network) with the
// recommendation and its explanation, store load against re-executed
// work (the frontier filled, the recommendation ringed), p99 failover
// against TTL (a line per renew interval, and per election timeout when
// the grid has that axis), heat maps over the grid (TTL × checkpoint
// policy, one per such series) of p99 failover, re-executed
// work and store writes per second, the table of every configuration,
// and the failing runs with their replay commands.
func WriteTuneHTML(w io.Writer, res tune.Result) error {
	page := tunePage{R: res, Glance: tuneGlance(res), Goal: tuneGoal(res), Columns: tuneColumnsOf(res), Rows: tuneRows(res),
		Scatter: newScatter(res), Lines: newFailoverLines(res), Heat: newHeatGroups(res), Seeds: tuneSeeds(res),
		Failing: plural(res.ViolatingRuns, "run"), CSS: pageCSS, MarkPareto: markPareto, MarkChoice: markRecommended}
	switch {
	case res.ViolatingRuns > 0:
		page.Verdict = "violated"
	case res.Partial:
		page.Verdict = "partial"
	case res.RecommendedIndex < 0:
		page.Verdict = "none"
	default:
		page.Verdict = "recommended"
	}
	for _, c := range res.Configs {
		for _, v := range c.Violations {
			page.Violations = append(page.Violations, tuneViolation{Label: c.Label, Violation: v})
		}
		if u := unknownCounts(c.Unknown); u != "none" {
			page.Unknown = append(page.Unknown, tuneUnknown{Label: c.Label, Counts: u})
		}
	}
	if err := pages.ExecuteTemplate(w, "tune.html.tmpl", page); err != nil {
		return fmt.Errorf("reports: writing tune.html: %w", err)
	}
	return nil
}

// WriteTuneDir writes a tuning run's report files into dir, creating it:
// tune.json (the result, as `simrun tune --json` prints it) and, for a
// workload's lease grid, tune.html, whose charts are drawn over TTL and
// renew interval (a goroutine-host implementation's knobs have neither:
// its result is tune.json alone). It returns the paths written, in that
// order.
func WriteTuneDir(dir string, res tune.Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("reports: tune directory: %w", err)
	}
	files := []namedWriter{{TuneJSONFile, func(w io.Writer) error { return writeIndentedJSON(w, res) }}}
	if res.Workload != "" {
		files = append(files, namedWriter{TuneHTMLFile, func(w io.Writer) error { return WriteTuneHTML(w, res) }})
	}
	return writeFiles(dir, files)
}
