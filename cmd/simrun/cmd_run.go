package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/tune"
)

// seedFlags are the flags that name one run: scenario, seed and impl.
type seedFlags struct {
	scenario, seedArg, impl string
	// seed is --seed, read by resolve (a "random" seed is drawn there).
	seed uint64
}

func (f *seedFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.scenario, "scenario", "swarm", "the scenario to run (see simrun list)")
	cmd.Flags().StringVar(&f.seedArg, "seed", "1", "the seed: N, or random (drawn and printed first)")
	cmd.Flags().StringVar(&f.impl, "impl", lease.Correct().Name, `the implementation: "correct", "mutant/NAME", "zoo/NAME" or a zoo module's (see simrun list)`)
	_ = cmd.RegisterFlagCompletionFunc("scenario", completeScenarios)
	_ = cmd.RegisterFlagCompletionFunc("impl", completeImpls)
}

// resolve reads --seed and looks the scenario and implementation up.
func (f *seedFlags) resolve(a *app, cmd *cobra.Command) (scenarios.Scenario, lease.Impl, error) {
	sc, err := lookupScenario(f.scenario)
	if err != nil {
		return sc, lease.Impl{}, usageErr(cmd, err)
	}
	impl, err := f.resolveImpl(a, cmd)
	return sc, impl, err
}

// resolveImpl reads --seed and looks the implementation up.
func (f *seedFlags) resolveImpl(a *app, cmd *cobra.Command) (lease.Impl, error) {
	impl, err := lookupImpl(f.impl)
	if err != nil {
		return impl, usageErr(cmd, err)
	}
	if f.seed, err = a.parseSeed(cmd, "--seed", f.seedArg); err != nil {
		return impl, err
	}
	return impl, nil
}

type runFlags struct {
	seedFlags
	schedule, out, trace string
	json                 bool
	unknown              unknownPolicy
	// One tuning configuration on a workload, instead of --scenario.
	workload, ttl, renew, checkpoint string
	election                         string
	rho                              float64
	margin                           time.Duration
}

func (a *app) runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use: "run [--scenario NAME] [--seed N|random] [--impl NAME] [--schedule FILE] [--out DIR] [--json] [--trace FILE] " +
			"[--unknown fail|pass]\n  simrun run --workload FILE --ttl D --renew D|ttl/N --checkpoint Nu|D|none [--rho F] [--margin D] [--seed N] ...",
		Short: "run one seed of a scenario, or of a tuning configuration on a workload, and check every property",
		Long: "run runs one seed of a scenario (default: swarm, seed 1) and prints the properties, the metrics\n" +
			"and the command that replays it, or with --json the run object. --seed random draws a seed and\n" +
			"prints it first. --schedule replaces the scenario's fault plan with a schedule file (as simrun\n" +
			"shrink writes). --out writes run.json, schedule.json, history.jsonl, report.html and\n" +
			"trace.perfetto.json (and linearizability.html when P3 fails);\n" +
			"--trace streams every trace record as JSON lines.\n\n" +
			"--workload FILE with one --ttl, --renew and --checkpoint (and --rho, --margin) runs that one\n" +
			"configuration of simrun tune on the workload instead of a scenario: the same run, with the same\n" +
			"trace hash, as the tuning run's, so a failing tune run opens as report.html with --out.\n\n" +
			exitRuleHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runOne(cmd, f) },
	}
	f.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.schedule, "schedule", "", "a fault schedule (JSON; - reads standard input) that replaces the scenario's faults")
	fl.StringVar(&f.out, "out", "", "write the report files into this directory")
	fl.BoolVar(&f.json, "json", false, "print the run as one JSON object")
	fl.StringVar(&f.trace, "trace", "", "stream the trace to this file as JSON lines")
	addUnknownFlag(fl, &f.unknown)
	fl.StringVar(&f.workload, "workload", "", "run a tuning configuration on this workload file instead of a scenario")
	fl.StringVar(&f.ttl, "ttl", "", "with --workload: the TTL (5s)")
	fl.StringVar(&f.renew, "renew", "ttl/3", "with --workload: the renew interval, a duration or a fraction of the TTL (ttl/3)")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "with --workload: the checkpoint policy, every N units (5u), an interval (30s) or none")
	fl.StringVar(&f.election, "election-timeout", "", "with --workload: a replicated store's election timeout (1s)")
	fl.Float64Var(&f.rho, "rho", tune.DefaultRho, "with --workload: the clock drift bound the configuration assumes")
	fl.DurationVar(&f.margin, "margin", tune.DefaultMargin, "with --workload: the holders' safety margin")
	return cmd
}

// exitRuleHelp is the exit code rule for verdicts, as every judging
// command's help states it.
const exitRuleHelp = "Exit 0 when every property held; 1 when one was violated, the run stopped at a limit, or a\n" +
	"property was unknown (no data, a timeout, a premise that did not happen: unknown is never a pass;\n" +
	"--unknown=pass accepts it); 2 for bad input; 3 for an internal error or a harness bug. An unknown that\n" +
	"only says the run exceeded an assumption (P1 under drift beyond rho) is shown apart and never fails."

// runTarget is what one run runs: the scenario and implementation, and the
// flags that name it in the replay line.
type runTarget struct {
	sc     scenarios.Scenario
	impl   lease.Impl
	replay func(seed uint64) []string // the replay line's arguments
}

// target resolves --scenario, or --workload and its configuration flags.
func (a *app) target(cmd *cobra.Command, f *runFlags) (runTarget, error) {
	fl := cmd.Flags()
	if f.workload == "" {
		for _, name := range []string{"ttl", "renew", "checkpoint", "election-timeout", "rho", "margin"} {
			if fl.Changed(name) {
				return runTarget{}, usagef(cmd, "--%s: only with --workload FILE", name)
			}
		}
		sc, impl, err := f.resolve(a, cmd)
		if err != nil {
			return runTarget{}, err
		}
		return runTarget{sc: sc, impl: impl, replay: func(seed uint64) []string {
			args := []string{"run", "--scenario", sc.Name, "--seed", strconv.FormatUint(seed, 10)}
			if impl.Name != lease.Correct().Name {
				args = append(args, "--impl", impl.Name)
			}
			return args
		}}, nil
	}
	if fl.Changed("scenario") {
		return runTarget{}, usagef(cmd, "--scenario: give a scenario or --workload FILE, not both")
	}
	impl, err := f.resolveImpl(a, cmd)
	if err != nil {
		return runTarget{}, err
	}
	cfg, err := f.tuneConfig(cmd)
	if err != nil {
		return runTarget{}, err
	}
	cfg.Impl = impl
	if cfg.ElectionTimeouts, err = electionTimeouts(cmd, f.election, impl); err != nil {
		return runTarget{}, err
	}
	one, err := tune.OneConfig(cfg)
	switch {
	case errors.Is(err, tune.ErrInvalid):
		return runTarget{}, usagef(cmd, "--ttl, --renew, --checkpoint, --rho, --margin: %w", err)
	case err != nil:
		return runTarget{}, classifyTune(cmd, f.workload, err)
	}
	return runTarget{sc: one.Scenario, impl: impl, replay: func(seed uint64) []string {
		return one.Result.RunArgs(one.Config, seed)
	}}, nil
}

// tuneConfig reads --ttl, --renew and --checkpoint: one value each.
func (f *runFlags) tuneConfig(cmd *cobra.Command) (tune.Config, error) {
	cfg := tune.Config{Workload: f.workload, Rho: f.rho, Margin: f.margin}
	var err error
	if f.ttl == "" {
		return cfg, usagef(cmd, "--ttl: missing: --workload runs one configuration, give its TTL (for example 5s)")
	}
	if f.checkpoint == "" {
		return cfg, usagef(cmd, "--checkpoint: missing: --workload runs one configuration, give its policy (5u, 30s or none)")
	}
	if cfg.TTLs, err = tune.ParseTTLs(f.ttl); err != nil || len(cfg.TTLs) != 1 {
		return cfg, usagef(cmd, "--ttl %q: want one TTL such as 5s%s", f.ttl, because(err))
	}
	if cfg.Renews, err = tune.ParseList(f.renew, tune.ParseRenew); err != nil || len(cfg.Renews) != 1 {
		return cfg, usagef(cmd, "--renew %q: want one renew interval such as 1s or ttl/3%s", f.renew, because(err))
	}
	if cfg.Checkpoints, err = tune.ParseList(f.checkpoint, tune.ParseCheckpoint); err != nil || len(cfg.Checkpoints) != 1 {
		return cfg, usagef(cmd, "--checkpoint %q: want one policy such as 5u, 30s or none%s", f.checkpoint, because(err))
	}
	switch {
	case !(f.rho >= 0 && f.rho < 0.5):
		return cfg, usagef(cmd, "--rho: must lie in [0, 0.5), got %v", f.rho)
	case f.margin < 0:
		return cfg, usagef(cmd, "--margin: must not be negative, got %v", f.margin)
	}
	return cfg, nil
}

// because is ": err" for a non-nil err, else "".
func because(err error) string {
	if err == nil {
		return ""
	}
	return ": " + err.Error()
}

func (a *app) runOne(cmd *cobra.Command, f runFlags) error {
	t, err := a.target(cmd, &f)
	if err != nil {
		return err
	}
	sc, impl := t.sc, t.impl
	opts := scenarios.Options{Impl: impl, Logger: a.logger}
	if f.schedule != "" {
		s, err := readSchedule(f.schedule, sc.NodesFor(impl), knownFailpoints(impl))
		if err != nil {
			return usageErr(cmd, err)
		}
		opts.Schedule = &s
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
		opts.Check.Visualize = true // reports writes it into --out
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
	run, data := reports.EventRun(out, wall)
	args := t.replay(f.seed)
	if f.schedule != "" {
		args = append(args, "--schedule", f.schedule)
	}
	run.Replay = repro.Simrun(args...)
	if f.schedule == stdinName {
		// The schedule came on standard input: the line pipes it in again.
		b, err := json.Marshal(opts.Schedule)
		if err != nil {
			return internalErr(err)
		}
		run.Replay = repro.Piped(string(b), run.Replay)
	}
	if err := a.showRun(run, data, f.json, f.out); err != nil {
		return err
	}
	return runVerdict(run, f.unknown)
}

// runVerdict applies the exit rule to one run: a violation or a stop at a
// limit fails it; an unknown fails it under --unknown=fail, naming the
// properties and why; an exceeded assumption never does.
func runVerdict(run reports.Run, policy unknownPolicy) error {
	violated := len(run.Violations)
	if run.Stopped != "" {
		violated++
	}
	var unknown []string
	for _, p := range run.Properties {
		if p.Status == checker.Unknown && !p.AssumptionOnly() {
			unknown = append(unknown, fmt.Sprintf("%s %s (%s)", p.Property, p.Name, p.Summary))
		}
	}
	return verdictErr(violated, len(unknown), policy, strings.Join(unknown, "; "))
}

// showRun prints run on stdout, as text or one JSON object, and writes its
// report files (drawn from run and d alone) into dir if dir is set. Every
// host's run, and simrun check's, is shown through it.
func (a *app) showRun(run reports.Run, d reports.RunData, asJSON bool, dir string) error {
	return a.present(asJSON, run,
		func(w io.Writer) error { return reports.WriteRunText(w, run, d.History) },
		dir, func(dir string) ([]string, error) { return reports.WriteRunDir(dir, run, d) })
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
