package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
)

// renderer is what simrun needs from package reports to show results.
//
// TODO(reports): WriteRunText, WriteRunDir, WriteSweepText and
// WriteSweepDir are being written in package reports. Until they land,
// fallbackRenderer prints a plain summary and writes the JSON files; then
// this interface goes and the commands call reports directly.
type renderer interface {
	RunText(w io.Writer, run reports.Run, out *scenarios.Outcome) error
	RunDir(dir string, run reports.Run, out *scenarios.Outcome) ([]string, error)
	SweepText(w io.Writer, s sweep.Summary) error
	SweepDir(dir string, s sweep.Summary) ([]string, error)
}

var render renderer = fallbackRenderer{}

// fallbackRenderer is the stand-in for package reports' renderers.
type fallbackRenderer struct{}

func (fallbackRenderer) RunText(w io.Writer, run reports.Run, _ *scenarios.Outcome) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "leasesim run  %s  impl %s  seed %d\n\nProperties\n", run.Scenario, run.Impl, run.Seed)
	for _, p := range run.Properties {
		fmt.Fprintf(&sb, "  %-3s %-16s %-9s %s\n", p.Property, p.Name, p.Status, p.Summary)
	}
	for _, v := range run.Violations {
		fmt.Fprintf(&sb, "\nVIOLATED %s at %v: %s\n", v.Property, v.At, v.Detail)
	}
	if run.Stopped != "" {
		fmt.Fprintf(&sb, "\nSTOPPED EARLY: %s\n", run.Stopped)
	}
	fmt.Fprintf(&sb, "\n%d events, %.1f s simulated in %.3f s (%.0fx), %d faults\ntrace hash %s\nreplay: %s\n",
		run.Events, run.SimSeconds, run.WallSeconds, run.Acceleration, len(run.Faults), run.TraceHash, run.Replay)
	_, err := io.WriteString(w, sb.String())
	return err
}

func (fallbackRenderer) RunDir(dir string, run reports.Run, out *scenarios.Outcome) ([]string, error) {
	return writeJSONFiles(dir, map[string]any{"run.json": run, "schedule.json": out.Schedule}, "run.json", "schedule.json")
}

func (fallbackRenderer) SweepText(w io.Writer, s sweep.Summary) error {
	var sb strings.Builder
	if s.Partial {
		fmt.Fprintf(&sb, "PARTIAL: interrupted after %d of %d runs\n", s.Runs, s.RunsExpected)
	}
	fmt.Fprintf(&sb, "leasesim sweep  %s  impl %s  seeds %d-%d  shard %s\n", strings.Join(s.Scenarios, ","),
		s.Impl, s.SeedFirst, s.SeedLast, s.Shard)
	fmt.Fprintf(&sb, "%d runs, %d failing, %.1f seeds/s, %.0f events/s, mean acceleration %.0fx\n",
		s.Runs, len(s.Failures)+s.FailuresOmitted, s.SeedsPerSecond, s.EventsPerSecond, s.MeanAcceleration)
	for _, f := range s.Failures {
		fmt.Fprintf(&sb, "  FAIL %s seed %d %s: %s\n    replay: %s\n", f.Scenario, f.Seed,
			strings.Join(f.Properties, ","), f.Detail, f.Replay)
	}
	for p, n := range s.Unknown {
		fmt.Fprintf(&sb, "  %s unknown in %d runs\n", p, n)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func (fallbackRenderer) SweepDir(dir string, s sweep.Summary) ([]string, error) {
	return writeJSONFiles(dir, map[string]any{"summary.json": s}, "summary.json")
}

// writeJSONFiles writes each named value as indented JSON into dir, in the
// order names gives, and returns the paths.
func writeJSONFiles(dir string, values map[string]any, names ...string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, name := range names {
		b, err := json.MarshalIndent(values[name], "", "  ")
		if err != nil {
			return paths, err
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
