package reports

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/sweep"
)

// Bounds on what sweep.html lists; summary.json has the rest.
const (
	maxHTMLFailures = 200
)

// sweepPage is the view model of sweep.html.
type sweepPage struct {
	S            sweep.Summary
	Scenarios    string
	Verdict      string
	VerdictClass string
	Failed       int
	Unknown      string
	UnknownRows  []metricRow
	Partial      string
	Determinism  string
	ByProperty   []propertyFailures
	PerScenario  []scenarioRow
	Failures     []sweep.Failure
	MoreFailures int
	Histograms   []histogram
	Stats        []metricRow
	Metrics      []metricRow
	Coverage     []coverageRow
	CoverageNote string
	CSS          template.CSS
}

// coverageRow is one rare behaviour and how many times the sweep's runs
// reached it; Missed flags the ones no run reached.
type coverageRow struct {
	Name, Doc string
	Count     uint64
	Missed    bool
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
	page := sweepPage{S: s, Scenarios: scenarioList(s.Scenarios), Failed: s.Failed(),
		Unknown: unknownRuns(s), ByProperty: byPropertyRows(s), PerScenario: perScenarioRows(s),
		Failures: s.Failures[:min(len(s.Failures), maxHTMLFailures)], Metrics: metrics, Stats: sweepStats(s),
		Histograms: []histogram{
			newHistogram("Failover time", s.Failover),
			newHistogram("P1 minimum margin per run (below 0 is an overlap)", s.Margin),
			newHistogram("Task completion latency", s.TaskLatency),
		},
		CSS: pageCSS,
	}
	page.Coverage, page.CoverageNote = coverageRows(s), TextOptions{}.coverageNote(s)
	for _, reason := range sortedStrings(s.UnknownReasons) {
		page.UnknownRows = append(page.UnknownRows, metricRow{reason, strconv.Itoa(s.UnknownReasons[reason])})
	}
	if s.Partial {
		page.Partial = partialNote(s)
	}
	if s.VerifyDeterminism {
		page.Determinism = determinismNote(s)
	}
	page.MoreFailures = page.Failed - len(page.Failures)
	page.Verdict, page.VerdictClass = sweepVerdict(s)
	if err := pages.ExecuteTemplate(w, "sweep.html.tmpl", page); err != nil {
		return fmt.Errorf("reports: writing sweep.html: %w", err)
	}
	return nil
}

// sweepVerdict is the word at the top of sweep.html: failed, then
// unknown, then partial (never a green ok when runs or shards are
// missing), else ok.
func sweepVerdict(s sweep.Summary) (verdict, class string) {
	switch {
	case s.Failed() > 0:
		return "failed", "violated"
	case s.UnknownRuns > 0:
		return "unknown", "unknown"
	case s.Partial:
		return "partial", "unknown"
	}
	return "ok", "ok"
}

// byPropertyRows flattens the failures by property and scenario, in
// property order, with the command that replays the first failing seed.
func byPropertyRows(s sweep.Summary) []propertyFailures {
	var rows []propertyFailures
	for _, prop := range sortedProperties(s.ByProperty) {
		for _, sc := range sortedStrings(s.ByProperty[prop]) {
			set := s.ByProperty[prop][sc]
			row := propertyFailures{Property: prop, Scenario: sc, Count: int(set.Count()), Seeds: seedSetText(set)}
			if first, ok := set.First(); ok {
				row.Replay = replayCommand(s, prop, sc, first)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// replayCommand returns the command that replays one failing run of a
// sweep: the failure's own when the summary lists it, or the one the
// sweep would have printed.
func replayCommand(s sweep.Summary, property, scenario string, seed uint64) string {
	for _, f := range s.Failures {
		if f.Scenario == scenario && f.Seed == seed && f.Replay != "" {
			return f.Replay
		}
	}
	return sweep.ReplayCommand(scenario, seed, s.Impl, []string{property})
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
		{"runs per second", strconv.FormatFloat(s.RunsPerSecond, 'f', 1, 64)},
		{"mean acceleration", formatAcceleration(s.MeanAcceleration)},
		{"simulated seconds", strconv.FormatFloat(s.SimSeconds, 'f', 1, 64)},
		{"wall seconds", strconv.FormatFloat(s.WallSeconds, 'f', 3, 64)},
		{"CPU seconds (sum of runs)", strconv.FormatFloat(s.CPUSeconds, 'f', 3, 64)},
		{"determinism verified", strconv.FormatBool(s.VerifyDeterminism)},
		{"assumption exceeded (not failures)", plural(s.AssumptionExceeded, "run")},
	}
}

// coverageRows lists every known behaviour with its count, in
// checker.Behaviours order.
func coverageRows(s sweep.Summary) []coverageRow {
	c := s.Coverage
	if len(c) == 0 {
		return nil
	}
	rows := make([]coverageRow, 0, len(c))
	for _, b := range checker.Behaviours() {
		na := slices.Contains(s.CoverageNotApplicable, b.Name)
		doc := b.Doc
		if na {
			doc += " (does not apply to " + s.Impl + ")"
		}
		rows = append(rows, coverageRow{Name: b.Name, Doc: doc, Count: c[b.Name], Missed: c[b.Name] == 0 && !na})
	}
	return rows
}
