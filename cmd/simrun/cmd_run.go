package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
)

// seedFlags are the flags that name one run: scenario, seed and impl.
type seedFlags struct {
	scenario string
	seed     uint64
	impl     string
}

func (f *seedFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.scenario, "scenario", "swarm", "the scenario to run (see simrun list)")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "the seed")
	cmd.Flags().StringVar(&f.impl, "impl", lease.Correct().Name, `the implementation: "correct" or "mutant/NAME" (see simrun list)`)
}

// resolve looks the scenario and implementation up.
func (f *seedFlags) resolve(cmd *cobra.Command) (scenarios.Scenario, lease.Impl, error) {
	sc, err := lookupScenario(f.scenario)
	if err != nil {
		return sc, lease.Impl{}, usageErr(cmd, err)
	}
	impl, err := lookupImpl(f.impl)
	if err != nil {
		return sc, impl, usageErr(cmd, err)
	}
	return sc, impl, nil
}

type runFlags struct {
	seedFlags
	schedule, out, trace string
	json                 bool
}

func (a *app) runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [--scenario NAME] [--seed N] [--impl NAME] [--schedule FILE] [--out DIR] [--json] [--trace FILE]",
		Short: "run one seed of a scenario and check every property",
		Long: "run runs one seed of a scenario (default: swarm, seed 1) and prints the properties, the metrics\n" +
			"and the command that replays it, or with --json the run object. --schedule replaces the\n" +
			"scenario's fault plan with a schedule file (as simrun shrink writes). --out writes run.json,\n" +
			"schedule.json, report.html and trace.perfetto.json; --trace streams every trace record as JSON lines.\n" +
			"Exit 0 when every property holds, 1 when one is violated or the run stopped at a limit.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runOne(cmd, f) },
	}
	f.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.schedule, "schedule", "", "a fault schedule (JSON) that replaces the scenario's faults")
	fl.StringVar(&f.out, "out", "", "write the report files into this directory")
	fl.BoolVar(&f.json, "json", false, "print the run as one JSON object")
	fl.StringVar(&f.trace, "trace", "", "stream the trace to this file as JSON lines")
	return cmd
}

func (a *app) runOne(cmd *cobra.Command, f runFlags) error {
	sc, impl, err := f.resolve(cmd)
	if err != nil {
		return err
	}
	opts := scenarios.Options{Impl: impl, Logger: a.logger}
	if f.schedule != "" {
		s, err := readSchedule(f.schedule, sc.Nodes())
		if err != nil {
			return usageErr(cmd, err)
		}
		opts.Schedule = &s
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
		opts.Check.OutDir = f.out
	}
	trace, err := openTrace(f.trace)
	if err != nil {
		return usageErr(cmd, err)
	}
	if trace != nil {
		opts.Trace.Writer = trace
	}
	start := time.Now()
	out, err := scenarios.Execute(sc, f.seed, opts)
	wall := time.Since(start)
	if err := trace.Close(); err != nil {
		return internalErr(err)
	}
	if err != nil {
		return classify(cmd, fmt.Errorf("scenario %s seed %d: %w", sc.Name, f.seed, err))
	}
	run := reports.NewRun(out, wall)
	if f.schedule != "" {
		run.Replay += " --schedule " + f.schedule
	}
	if err := a.showRun(run, out, f.json, f.out); err != nil {
		return err
	}
	if runFailed(run) {
		return errViolated
	}
	return nil
}

// showRun prints run on stdout, as text or one JSON object, and writes its
// report files into dir if dir is set.
func (a *app) showRun(run reports.Run, out *scenarios.Outcome, asJSON bool, dir string) error {
	return a.present(asJSON, run,
		func(w io.Writer) error { return reports.WriteRunText(w, run, out) },
		dir, func(dir string) ([]string, error) { return reports.WriteRunDir(dir, run, out) })
}

// present prints v on stdout, as text or as one JSON object, then, if dir
// is set, writes its files there and says where: on stdout, or on stderr
// with --json, so that stdout holds exactly one JSON object. A failure to
// write is an internal error.
func (a *app) present(asJSON bool, v any, text func(io.Writer) error, dir string,
	files func(dir string) ([]string, error)) error {
	var err error
	if asJSON {
		err = writeJSON(a.stdout, v)
	} else {
		err = text(a.stdout)
	}
	if err != nil {
		return internalErr(err)
	}
	if dir == "" {
		return nil
	}
	paths, err := files(dir)
	if err != nil {
		return internalErr(err)
	}
	fmt.Fprintf(a.notes(asJSON), "wrote %s\n", strings.Join(paths, ", "))
	return nil
}

// notes is where a command says what it wrote: stdout, or stderr when
// stdout holds exactly one JSON object.
func (a *app) notes(asJSON bool) io.Writer {
	if asJSON {
		return a.stderr
	}
	return a.stdout
}

// runFailed reports whether a run violated a property or stopped early.
func runFailed(run reports.Run) bool { return len(run.Violations) > 0 || run.Stopped != "" }

// writeJSON writes v as one indented JSON object and a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// traceFile streams the trace to a file, or discards it when no file was
// asked for.
type traceFile struct {
	*bufio.Writer
	f *os.File
}

// openTrace creates the --trace file; an empty path gives nil.
func openTrace(path string) (*traceFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	return &traceFile{Writer: bufio.NewWriter(f), f: f}, nil
}

// Close flushes and closes the file; on a nil traceFile it does nothing.
func (t *traceFile) Close() error {
	if t == nil {
		return nil
	}
	if err := t.Flush(); err != nil {
		t.f.Close()
		return fmt.Errorf("--trace: %w", err)
	}
	return t.f.Close()
}
