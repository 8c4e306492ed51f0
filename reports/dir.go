package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history/leasewire"
)

// The files of a run's output directory.
const (
	RunJSONFile      = "run.json"
	ScheduleFile     = "schedule.json"
	ReportFile       = "report.html"
	PerfettoFile     = "trace.perfetto.json"
	HistoryFile      = "history.jsonl"        // the protocol-neutral history; judge it again with simrun check
	LinearizableFile = "linearizability.html" // P3's visualisation, which the checker renders (Result.Visualization)
)

// WriteRunDir writes a run's report files into dir, creating it: run.json
// (the run object), schedule.json (the fault schedule, which
// `simrun run --schedule` replays; only when d has one), report.html,
// trace.perfetto.json and history.jsonl (d's history with d's header
// fields). It returns the paths written, in that order. Every file is drawn
// from run and d alone, so a history.jsonl judged again (simrun check --out)
// gives the same report.
//
// A property result that carries a visualisation (P3's, when the checkers
// were asked for one: checker.Options.Visualize) is written to
// linearizability.html, with the run's context at its top (scenario, seed,
// implementation, property, a link back to report.html), and becomes that
// result's Artifact in run.json and report.html; the paths returned end
// with it.
//
// Everything in dir is the run's own: a linearizability.html that an
// earlier run left in dir is removed when this run has none, so a passing
// run never shows an old failure's visualisation.
func WriteRunDir(dir string, run Run, d RunData) ([]string, error) {
	if d.History == nil {
		return nil, errors.New("reports: run directory needs the run's history")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("reports: run directory: %w", err)
	}
	files := []fileLink{{Name: RunJSONFile, Href: RunJSONFile, Note: "the run object (simrun run --json)"}}
	if d.Schedule != nil {
		files = append(files, fileLink{Name: ScheduleFile, Href: ScheduleFile, Note: "the fault schedule; replay with simrun run --schedule"})
	}
	files = append(files, []fileLink{
		{Name: PerfettoFile, Href: PerfettoFile, Note: "open in ui.perfetto.dev (Open trace file)"},
		{Name: HistoryFile, Href: HistoryFile, Note: "the history the checkers read, as JSON lines; judge it with simrun check"},
	}...)
	lin := filepath.Join(dir, LinearizableFile)
	own := slices.IndexFunc(run.Properties, func(r checker.Result) bool { return len(r.Visualization) > 0 })
	if own >= 0 {
		if err := writeVisualization(lin, run, run.Properties[own]); err != nil {
			return nil, err
		}
		run.Properties = slices.Clone(run.Properties) // the artifact is this directory's; the caller's results stay
		run.Properties[own].Artifact = lin
		files = append(files, fileLink{Name: LinearizableFile, Href: LinearizableFile,
			Note: "porcupine's visualisation of the linearizability check"})
	} else if err := os.Remove(lin); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reports: removing an earlier run's %s: %w", LinearizableFile, err)
	}
	writers := []namedWriter{{RunJSONFile, func(w io.Writer) error { return writeIndentedJSON(w, run) }}}
	if d.Schedule != nil {
		writers = append(writers, namedWriter{ScheduleFile, func(w io.Writer) error { return writeIndentedJSON(w, d.Schedule) }})
	}
	paths, err := writeFiles(dir, append(writers, []namedWriter{
		{ReportFile, func(w io.Writer) error { return writeRunHTML(w, run, d, dir, files) }},
		{PerfettoFile, func(w io.Writer) error { return WritePerfetto(w, run, d) }},
		{HistoryFile, func(w io.Writer) error {
			if d.Recorded != nil {
				_, err := w.Write(d.Recorded)
				return err
			}
			return leasewire.WriteHistory(w, d.History, d.Meta)
		}},
	}...))
	if err == nil && own >= 0 {
		paths = append(paths, lin)
	}
	return paths, err
}

// namedWriter renders one file of an output directory.
type namedWriter struct {
	name  string
	write func(io.Writer) error
}

// writeFiles writes each file into dir, in order, and returns the paths
// written; it stops at the first error.
func writeFiles(dir string, files []namedWriter) ([]string, error) {
	paths := make([]string, 0, len(files))
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := WriteFileAtomic(path, f.write); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// writeIndentedJSON writes v as indented JSON with a final newline.
func writeIndentedJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("reports: encoding JSON: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
