package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

type shrinkFlags struct {
	seedFlags
	out         string
	maxAttempts int
	json        bool
}

// shrinkSchemaVersion is the version of shrink's JSON object.
const shrinkSchemaVersion = 1

// shrinkResult is what shrink found: its JSON object.
type shrinkResult struct {
	SchemaVersion int    `json:"schema_version"`
	Scenario      string `json:"scenario"`
	Impl          string `json:"impl"`
	Seed          uint64 `json:"seed"`
	// Property is the violated property that the smaller schedule keeps,
	// Name its name and Summary the first run's summary of it.
	Property string `json:"property"`
	Name     string `json:"name"`
	Summary  string `json:"summary"`
	// EventsBefore and EventsAfter count the fault events of the seed's
	// schedule and of the shrunk one; Attempts counts the runs tried.
	EventsBefore int  `json:"events_before"`
	EventsAfter  int  `json:"events_after"`
	Attempts     int  `json:"attempts"`
	Exhausted    bool `json:"exhausted"`
	// ScheduleFile is where the shrunk schedule was written, Schedule the
	// schedule itself, Replay the command that runs it.
	ScheduleFile string          `json:"schedule_file"`
	Schedule     faults.Schedule `json:"schedule"`
	Replay       string          `json:"replay"`
}

func (a *app) shrinkCommand() *cobra.Command {
	var f shrinkFlags
	cmd := &cobra.Command{
		Use:   "shrink --scenario NAME --seed N [--impl NAME] [--out DIR] [--max-attempts N] [--json]",
		Short: "cut a failing seed's fault schedule down to a minimal one that still fails",
		Long: "shrink runs the seed once and takes the first property it violates. It then removes fault\n" +
			"events and shortens pauses, delays, steps, drifts and windows for as long as the same seed,\n" +
			"run with the smaller schedule, still violates that property, and prints the command that\n" +
			"replays it, or with --json one object (schema_version " + strconv.Itoa(shrinkSchemaVersion) + ").\n" +
			"--out writes schedule.json (default: into the current directory).\n" +
			"Exit 0 when it wrote a schedule; 2 for bad input, or when the seed violates nothing; 3 for an\n" +
			"internal error or a harness bug.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.shrink(cmd, f) },
	}
	f.add(cmd)
	cmd.Flags().StringVar(&f.out, "out", ".", "write schedule.json into this directory")
	cmd.Flags().IntVar(&f.maxAttempts, "max-attempts", faults.DefaultShrinkAttempts, "runs to try at most")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the result as one JSON object (progress goes to stderr)")
	return cmd
}

func (a *app) shrink(cmd *cobra.Command, f shrinkFlags) error {
	sc, impl, err := f.resolve(a, cmd)
	if err != nil {
		return err
	}
	if f.maxAttempts < 1 {
		return usagef(cmd, "--max-attempts: must be at least 1, got %d", f.maxAttempts)
	}
	opts := scenarios.Options{Impl: impl, Trace: sim.TraceConfig{Keep: -1}}
	shrunk, err := scenarios.ShrinkSeed(sc, f.seed, opts, f.maxAttempts)
	switch {
	case errors.Is(err, scenarios.ErrNothingToShrink):
		return &exitError{code: exitUsage, err: fmt.Errorf("nothing to shrink: seed %d passes (scenario %s, impl %s)",
			f.seed, sc.Name, impl.Name)}
	case errors.Is(err, scenarios.ErrNotReproducible):
		return internalErr(err)
	case err != nil:
		return classify(cmd, fmt.Errorf("scenario %s seed %d: %w", sc.Name, f.seed, err))
	}
	target, small, stats := shrunk.Target, shrunk.Schedule, shrunk.Stats
	fmt.Fprintf(a.notes(f.json), "seed %d violates %s %s: %s\nshrinking its %d fault events took %d runs\n",
		f.seed, target.Property, target.Name, target.Summary, len(shrunk.Original.Events), stats.Attempts)

	path := filepath.Join(f.out, reports.ScheduleFile)
	if err := writeSchedule(path, small); err != nil {
		return usagef(cmd, "--out: %w", err)
	}
	res := shrinkResult{SchemaVersion: shrinkSchemaVersion, Scenario: sc.Name, Impl: impl.Name, Seed: f.seed,
		Property: target.Property, Name: target.Name, Summary: target.Summary,
		EventsBefore: len(shrunk.Original.Events), EventsAfter: len(small.Events), Attempts: stats.Attempts,
		Exhausted: stats.Exhausted, ScheduleFile: path, Schedule: small,
		Replay: repro.Simrun("run", "--scenario", sc.Name, "--seed", strconv.FormatUint(f.seed, 10),
			"--impl", impl.Name, "--schedule", path)}
	if f.json {
		if err := writeJSON(a.stdout, res); err != nil {
			return internalErr(err)
		}
		return nil
	}
	note := ""
	if stats.Exhausted {
		note = " (stopped at --max-attempts; more may go)"
	}
	fmt.Fprintf(a.stdout, "shrunk %d fault events to %d in %d runs%s; %s still violated:\n%s\n",
		res.EventsBefore, res.EventsAfter, stats.Attempts, note, target.Property, indent(small.String()))
	fmt.Fprintf(a.stdout, "wrote %s\nreplay: %s\n", path, res.Replay)
	return nil
}

// writeSchedule writes s as indented JSON to path, creating its directory.
func writeSchedule(path string, s faults.Schedule) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return reports.WriteFileAtomic(path, func(w io.Writer) error { return writeJSON(w, s) })
}

// indent indents every line of s by two spaces.
func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }
