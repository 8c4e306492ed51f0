package reports

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/scenarios"
)

// The page templates, style sheet and script, embedded so that every page
// is one self-contained file: no network, no CDN, works from file://.
//
//go:embed templates
var templateFS embed.FS

var (
	pages = template.Must(template.New("pages").Funcs(template.FuncMap{
		"px":     px,
		"add":    func(a, b float64) float64 { return a + b },
		"center": func(y, h float64) float64 { return y + h/2 },
		"plotw":  func(width, pad float64) float64 { return width - 2*pad },
		"need":   func(label string) float64 { return float64(len(label))*charWidth + 6 },
		"odd":    func(i int) bool { return i%2 == 1 },
		"upper":  strings.ToUpper,
	}).ParseFS(templateFS, "templates/*.tmpl"))
	pageCSS = template.CSS(mustRead("templates/style.css"))
	pageJS  = template.JS(mustRead("templates/timeline.js"))
)

func mustRead(name string) string {
	b, err := templateFS.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("reports: embedded %s missing: %v", name, err))
	}
	return string(b)
}

// px formats a coordinate with at most two decimals, so pages stay small
// and identical across runs.
func px(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// runPage is the view model of report.html.
type runPage struct {
	Run          Run
	Verdict      string
	Story        string
	Glance       []string
	Timeline     timeline
	Properties   []propertyView
	Violations   []violationView
	Metrics      []metricRow
	Faults       []faultView
	FaultCounts  string
	Schedule     string
	Config       string
	Acceleration string
	Files        []fileLink
	CSS          template.CSS
	JS           template.JS
}

type propertyView struct {
	Property, Name, Summary, Bound, Margin string
	Status                                 checker.Status
	AssumptionExceeded                     bool
	Overlap                                bool // P1's margin is negative
	Artifact, ArtifactName                 string
}

type violationView struct {
	Property, At, Detail string
	Recent               string // the recent-fault window: "one TTL (5s)"
	Evidence             []string
	Faults               []string
}

type faultView struct {
	At, Kind, Node, Peer, Value, Detail string
}

// fileLink is a link to a file next to the report.
type fileLink struct {
	Name, Href, Note string
}

// WriteRunHTML writes report.html for one run to w: the timeline, the
// properties, the violations with their evidence, the metrics, the faults
// and the replay command, in one self-contained page.
func WriteRunHTML(w io.Writer, run Run, d RunData) error {
	return writeRunHTML(w, run, d, "", nil)
}

// writeRunHTML renders report.html. dir is the directory it is written to
// (or ""), to link a checker's artifacts relative to it; files are links to
// the files written next to it.
func writeRunHTML(w io.Writer, run Run, d RunData, dir string, files []fileLink) error {
	if d.History == nil {
		return fmt.Errorf("reports: report.html needs the run's history")
	}
	var schedule []byte
	if d.Schedule != nil {
		var err error
		if schedule, err = json.MarshalIndent(d.Schedule, "", "  "); err != nil {
			return fmt.Errorf("reports: report.html: schedule: %w", err)
		}
	}
	metrics, err := metricRows(run.Metrics)
	if err != nil {
		return err
	}
	page := runPage{
		Run: run, Verdict: runVerdict(run), Story: storyOf(run), Glance: glance(run, d.History),
		Timeline: buildTimeline(run, d.History), Properties: propertyViews(run.Properties, dir),
		Violations: violationViews(run, d.History), Metrics: metrics, Faults: faultViews(run.Faults),
		FaultCounts: faultCounts(run.Faults), Schedule: string(schedule), Config: configLine(d.History.Lease),
		Acceleration: formatAcceleration(run.Acceleration), Files: files, CSS: pageCSS, JS: pageJS,
	}
	if err := pages.ExecuteTemplate(w, "run.html.tmpl", page); err != nil {
		return fmt.Errorf("reports: writing report.html: %w", err)
	}
	return nil
}

// runVerdict is the page's one-word verdict: stopped (a limit hit),
// violated, unknown, ok, or unchecked.
func runVerdict(run Run) string {
	if run.Stopped != "" {
		return "stopped"
	}
	verdict := "unchecked"
	for _, p := range run.Properties {
		switch {
		case p.Status == checker.Violated:
			return "violated"
		case p.Status == checker.Unknown:
			verdict = "unknown"
		case verdict == "unchecked":
			verdict = "ok"
		}
	}
	return verdict
}

// storyOf returns the story of a built-in scenario that the event host
// ran, or "" for a user's own or another host's (whose scenario may share a
// catalogue name but not its story).
func storyOf(run Run) string {
	if run.Producer != "" && run.Producer != leasewire.DefaultProducer {
		return ""
	}
	sc, err := scenarios.Lookup(run.Scenario)
	if err != nil {
		return ""
	}
	return sc.Story
}

// glance is the line under the title that tells the run in numbers.
func glance(run Run, h *history.History) []string {
	var grants, fenced, fencedCheckpoints int
	for _, kind := range markKinds(h) {
		switch kind {
		case "grant":
			grants++
		case "fenced":
			fenced++
		case "checkpoint-fenced":
			fencedCheckpoints++
		}
	}
	parts := []string{plural(grants, "grant"), plural(fenced, "write") + " fenced"}
	if fencedCheckpoints > 0 {
		parts = append(parts, plural(fencedCheckpoints, "checkpoint")+" fenced")
	}
	return append(parts, plural(len(run.Violations), "violation"), "faults: "+windowCounts(h),
		fmt.Sprintf("%.3f s simulated", run.SimSeconds))
}

// windowCounts counts a history's fault windows by kind: "1 pause".
func windowCounts(h *history.History) string {
	return faultCounts(FaultsOf(h.Faults))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// configLine states the lease configuration the run used.
func configLine(l history.Lease) string {
	return fmt.Sprintf("TTL %s · renew every %s · rho %g · margin %s · request timeout %s",
		l.TTL, l.RenewInterval, float64(l.RhoPPB)/1e9, l.Margin, l.RequestTimeout)
}

func propertyViews(results []checker.Result, dir string) []propertyView {
	views := make([]propertyView, len(results))
	for i, p := range results {
		v := propertyView{Property: p.Property, Name: p.Name, Status: p.Status, Summary: p.Summary,
			Bound: p.Bound, AssumptionExceeded: p.AssumptionExceeded}
		if p.MarginMin != nil {
			v.Margin, v.Overlap = p.MarginMin.String(), *p.MarginMin < 0
		}
		if p.Artifact != "" {
			v.Artifact, v.ArtifactName = artifactHref(p.Artifact, dir), filepath.Base(p.Artifact)
		}
		views[i] = v
	}
	return views
}

// artifactHref returns a link to a checker's file from a page in dir:
// relative when both paths resolve, the path itself otherwise.
func artifactHref(path, dir string) string {
	if dir != "" {
		absPath, errPath := filepath.Abs(path)
		absDir, errDir := filepath.Abs(dir)
		if errPath == nil && errDir == nil {
			if rel, err := filepath.Rel(absDir, absPath); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.ToSlash(path)
}

func violationViews(run Run, h *history.History) []violationView {
	views := make([]violationView, len(run.Violations))
	for i, v := range run.Violations {
		view := violationView{Property: v.Property, At: formatTime(v.At), Detail: v.Detail, Evidence: v.Evidence,
			Recent: recentWindowName(h)}
		for _, f := range violationFaults(v, h) {
			view.Faults = append(view.Faults, describeCause(f, v.At))
		}
		views[i] = view
	}
	return views
}

func faultViews(log []Fault) []faultView {
	views := make([]faultView, len(log))
	for i, f := range log {
		views[i] = faultView{At: formatTime(f.At), Kind: f.Kind, Node: f.Node, Peer: f.Peer,
			Value: faultValue(f), Detail: f.Detail}
	}
	return views
}

// faultValue formats a fault record's value in the unit its kind uses.
func faultValue(f Fault) string {
	switch {
	case f.Value == 0:
		return ""
	case f.Kind == history.FaultDrift:
		return checker.FormatDrift(f.Value)
	case f.Kind == history.FaultSplit:
		return fmt.Sprintf("%d groups", f.Value)
	default: // pause, step, link latency, failpoint pause: nanoseconds
		return time.Duration(f.Value).String()
	}
}
