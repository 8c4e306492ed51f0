package reports

import (
	"fmt"
	"html/template"
	"io"
	"strconv"

	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
)

// Bounds on what sweep.html lists; summary.json has the rest.
const (
	maxHTMLFailures = 200
	maxHTMLSeeds    = 100
)

// sweepPage is the view model of sweep.html.
type sweepPage struct {
	S            sweep.Summary
	Scenarios    string
	Verdict      string
	VerdictClass string
	Failed       int
	Unknown      string
	ByProperty   []propertyFailures
	PerScenario  []scenarioRow
	Failures     []sweep.Failure
	MoreFailures int
	Histograms   []histogram
	Stats        []metricRow
	Metrics      []metricRow
	CSS          template.CSS
}

// propertyFailures is one (property, scenario) cell of the failures.
type propertyFailures struct {
	Property, Scenario, Seeds, Replay string
	Count                             int
}

type scenarioRow struct {
	Name         string
	Runs, Failed int
}

// WriteSweepHTML writes sweep.html for a sweep summary to w: one
// self-contained page with the failures by property and by scenario and
// their replay commands, the throughput, the aggregate metrics, and
// histograms of failover time and of the P1 minimum margin.
func WriteSweepHTML(w io.Writer, s sweep.Summary) error {
	metrics, err := metricRows(s.Metrics)
	if err != nil {
		return err
	}
	page := sweepPage{S: s, Scenarios: scenarioList(s.Scenarios), Failed: len(s.Failures) + s.FailuresOmitted,
		Unknown: unknownCounts(s.Unknown), ByProperty: byPropertyRows(s), PerScenario: perScenarioRows(s),
		Failures: s.Failures[:min(len(s.Failures), maxHTMLFailures)], Metrics: metrics, Stats: sweepStats(s),
		Histograms: []histogram{
			newHistogram("Failover time (s)", s.FailoverSeconds),
			newHistogram("P1 minimum margin per run (s; below 0 is an overlap)", s.MarginSeconds),
			newHistogram("Task completion latency (s)", s.TaskLatencySeconds),
		},
		CSS: pageCSS,
	}
	page.MoreFailures = page.Failed - len(page.Failures)
	page.Verdict, page.VerdictClass = "ok", "ok"
	switch {
	case page.Failed > 0:
		page.Verdict, page.VerdictClass = "failed", "violated"
	case s.Partial:
		page.Verdict, page.VerdictClass = "partial", "unknown"
	}
	if err := pages.ExecuteTemplate(w, "sweep.html.tmpl", page); err != nil {
		return fmt.Errorf("reports: writing sweep.html: %w", err)
	}
	return nil
}

// byPropertyRows flattens the failures by property and scenario, in
// property order, with the command that replays the first failing seed.
func byPropertyRows(s sweep.Summary) []propertyFailures {
	var rows []propertyFailures
	for _, prop := range sortedProperties(s.ByProperty) {
		for _, sc := range sortedStrings(s.ByProperty[prop]) {
			seeds := s.ByProperty[prop][sc]
			row := propertyFailures{Property: prop, Scenario: sc, Count: len(seeds), Seeds: seedList(seeds, maxHTMLSeeds)}
			if len(seeds) > 0 {
				row.Replay = replayCommand(s, sc, seeds[0])
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// replayCommand returns the command that replays one run of a sweep: the
// failure's own when the summary lists it, or the one a run would print.
func replayCommand(s sweep.Summary, scenario string, seed uint64) string {
	for _, f := range s.Failures {
		if f.Scenario == scenario && f.Seed == seed && f.Replay != "" {
			return f.Replay
		}
	}
	out := scenarios.Outcome{Scenario: scenario, Impl: s.Impl, Seed: seed}
	return out.ReplayCommand()
}

func perScenarioRows(s sweep.Summary) []scenarioRow {
	rows := make([]scenarioRow, 0, len(s.PerScenario))
	for _, name := range sortedStrings(s.PerScenario) {
		c := s.PerScenario[name]
		rows = append(rows, scenarioRow{Name: name, Runs: c.Runs, Failed: c.Failed})
	}
	return rows
}

// sweepStats are the sweep's throughput figures, for people.
func sweepStats(s sweep.Summary) []metricRow {
	return []metricRow{
		{"runs", fmt.Sprintf("%d of %d", s.Runs, s.RunsExpected)},
		{"parallel", strconv.Itoa(s.Parallel)},
		{"events", strconv.FormatUint(s.Events, 10)},
		{"events per second", formatCount(s.EventsPerSecond)},
		{"seeds per second", strconv.FormatFloat(s.SeedsPerSecond, 'f', 1, 64)},
		{"mean acceleration", formatAcceleration(s.MeanAcceleration)},
		{"simulated seconds", strconv.FormatFloat(s.SimSeconds, 'f', 1, 64)},
		{"wall seconds", strconv.FormatFloat(s.WallSeconds, 'f', 3, 64)},
		{"CPU seconds (sum of runs)", strconv.FormatFloat(s.CPUSeconds, 'f', 3, 64)},
		{"determinism verified", strconv.FormatBool(s.VerifyDeterminism)},
	}
}
