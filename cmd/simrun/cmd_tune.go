package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/tune"
	"github.com/leasesim/leasesim/workload"
)

type tuneFlags struct {
	workload, ttl, renew, checkpoint, seeds, impl string
	election                                      string
	objective, maxWrites, maxReexec, maxFailover  string
	rho                                           float64
	margin                                        time.Duration
	parallel                                      int
	json                                          bool
	out                                           string
	// A goroutine-host implementation's tuning run (cmd_tune_knobs.go).
	scenario, zooDir, maxFalse, maxDetection string
	knobs                                    []string
}

func (a *app) tuneCommand() *cobra.Command {
	var f tuneFlags
	cmd := &cobra.Command{
		Use: "tune --workload FILE [--ttl LIST] [--renew LIST] [--checkpoint LIST] [--election-timeout LIST] [--seeds SEEDS] [--objective NAME] " +
			"[--max-store-writes R/s] [--max-reexecuted P%] [--max-failover-p99 D] [--rho F] [--margin D] [--parallel N] " +
			"[--impl NAME] [--json] [--out DIR]\n" +
			"  simrun tune --impl GOROUTINE-HOST-IMPL --scenario NAME --knob NAME=V1,V2 [--knob ...] [--seeds SEEDS] [--objective NAME] " +
			"[--max-false-suspicions N] [--max-detection D] [--max-failover-p99 D] [--parallel N] [--json]",
		Short: "choose TTL, renew interval and checkpoint policy for a workload, from evidence",
		Long: "tune replays a workload (see examples/ and simrun workload) under every combination of --ttl, --renew\n" +
			"and --checkpoint, each on the same seeds (common random numbers: the workload's faults are drawn\n" +
			"from the seed alone), checks every property on every run, and prints a row per config: p99 failover,\n" +
			"re-executed work, lease-store writes per second of workload, task latency p99, false expirations,\n" +
			"fenced replies, renewal failures and failing runs. ★ marks the Pareto frontier over (p99 failover,\n" +
			"re-executed work, store writes/s) and → the recommendation: the config on the frontier that minimises\n" +
			"--objective under the --max-* constraints, explained in one sentence.\n\n" +
			"  --ttl         durations: 2s,5s,10s\n" +
			"  --renew       durations (1s) or fractions of the TTL (ttl/3)\n" +
			"  --checkpoint  every N units (5u), an interval (30s), or none\n" +
			"  --election-timeout  durations: 500ms,1s,2s; only for an implementation that has one (a replicated\n" +
			"                store such as zoo/etcdraft); without it each runs at its default\n" +
			"  --seeds       seed N, a range A-B, a list 1-5,9, or random[:N] (as every command reads seeds)\n" +
			"  --objective   p99-failover (default), reexecuted, store-writes, task-latency-p99; for a failure\n" +
			"                detector false-suspicions or detection-max\n\n" +
			"A config that cannot be valid (renew >= TTL×(1−rho)−margin) is listed as invalid and not run.\n" +
			"A failing run is listed with the simrun run command that replays it exactly (the same trace hash;\n" +
			"with --out it writes that run's report.html).\n" +
			"--json prints the result as one JSON object; --out writes tune.json and tune.html (tune.json alone for\n" +
			"a goroutine-host implementation's knobs).\n\n" +
			"A goroutine-host implementation (a zoo module's, simrun list) is tuned over the knobs it declares\n" +
			"(simrun list --impl NAME lists them) instead: --scenario names the stories, measured together, and\n" +
			"each --knob NAME=V1,V2 is an axis; every combination runs on every seed of every story through the\n" +
			"module's worker processes. Each row gives the verdicts, a failure detector's false suspicions and\n" +
			"detection times (P7, P8), p99 failover and the smallest P1 margin (a leadership overlap when\n" +
			"negative); --objective false-suspicions or detection-max and --max-false-suspicions, --max-detection\n" +
			"choose among them. A combination the implementation refuses is listed as invalid. Each row prints the\n" +
			"simrun sweep line that runs it again, each failing run its simrun run line, both with the knobs.\n\n" +
			"Exit 0 when no run failed (with or without a recommendation: when no config meets the constraints,\n" +
			"the explanation says which constraint excluded them), 1 when a run violated a property, 2 for bad\n" +
			"input (a grid without one valid config among it), 3 when interrupted (Ctrl-C) before any failure.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.tune(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", "", "the workload file (JSON lines; see examples/)")
	fl.StringVar(&f.ttl, "ttl", "2s,5s,10s,20s", "TTLs, separated by commas")
	fl.StringVar(&f.renew, "renew", "ttl/3", "renew intervals: durations or fractions of the TTL (ttl/3), separated by commas")
	fl.StringVar(&f.checkpoint, "checkpoint", "2u,5u,10u,none", "checkpoint policies: every N units (5u), an interval (30s) or none")
	fl.StringVar(&f.election, "election-timeout", "", "election timeouts of a replicated store (500ms,1s,2s); only for an --impl that has one")
	fl.StringVar(&f.seeds, "seeds", "1-10", "the seeds every config runs on: "+seedSetHelp)
	fl.StringVar(&f.objective, "objective", string(tune.ObjectiveFailoverP99), "what the recommendation minimises: "+
		"p99-failover, reexecuted, store-writes, task-latency-p99, false-suspicions or detection-max")
	fl.StringVar(&f.maxWrites, "max-store-writes", "", "recommend only configs with at most this many store writes per second of workload (200/s)")
	fl.StringVar(&f.maxReexec, "max-reexecuted", "", "recommend only configs that re-execute at most this share of unit executions (5%)")
	fl.StringVar(&f.maxFailover, "max-failover-p99", "", "recommend only configs whose p99 failover is at most this (30s)")
	fl.Float64Var(&f.rho, "rho", tune.DefaultRho, "the clock drift bound every config assumes")
	fl.DurationVar(&f.margin, "margin", tune.DefaultMargin, "the holders' safety margin")
	fl.IntVar(&f.parallel, "parallel", 0, "runs at once (0: every core)")
	fl.StringVar(&f.impl, "impl", lease.Correct().Name, `the implementation: "correct", "mutant/NAME", "zoo/NAME" or a zoo module's (see simrun list)`)
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object")
	fl.StringVar(&f.out, "out", "", "write tune.json and tune.html into this directory")
	fl.StringVar(&f.scenario, "scenario", "", "goroutine host: the scenarios every configuration runs, measured together: NAME, NAME,NAME or all (simrun list --impl NAME)")
	fl.StringArrayVar(&f.knobs, "knob", nil, "goroutine host: a knob axis, NAME=V1,V2 (repeat for more knobs; simrun list --impl NAME lists them)")
	fl.StringVar(&f.maxFalse, "max-false-suspicions", "", "goroutine host: recommend only configs with at most this many false suspicions (P7) over their runs")
	fl.StringVar(&f.maxDetection, "max-detection", "", "goroutine host: recommend only configs that declare every stopped member dead within this (P8; 70s)")
	fl.StringVar(&f.zooDir, "zoo-dir", "", zooDirUsage)
	return cmd
}

// config turns the flags into a tuning configuration; every error names
// its flag.
func (a *app) tuneConfig(cmd *cobra.Command, f tuneFlags) (tune.Config, error) {
	cfg := tune.Config{Workload: f.workload, Rho: f.rho, Margin: f.margin, Parallel: f.parallel}
	var err error
	if f.workload == "" {
		return cfg, usagef(cmd, "--workload: missing: give the workload file (for example examples/steady-batch.jsonl)")
	}
	if cfg.TTLs, err = tune.ParseTTLs(f.ttl); err != nil {
		return cfg, usagef(cmd, "--ttl: %w", err)
	}
	if cfg.Renews, err = tune.ParseList(f.renew, tune.ParseRenew); err != nil {
		return cfg, usagef(cmd, "--renew: %w", err)
	}
	if cfg.Checkpoints, err = tune.ParseList(f.checkpoint, tune.ParseCheckpoint); err != nil {
		return cfg, usagef(cmd, "--checkpoint: %w", err)
	}
	if cfg.Seeds, err = a.parseSeeds(cmd, "--seeds", f.seeds); err != nil {
		return cfg, err
	}
	if cfg.Objective, err = tune.ParseObjective(f.objective); err != nil {
		return cfg, usagef(cmd, "--objective: %w", err)
	}
	if cfg.Impl, err = lookupImpl(f.impl); err != nil {
		return cfg, usageErr(cmd, err)
	}
	if cfg.ElectionTimeouts, err = electionTimeouts(cmd, f.election, cfg.Impl); err != nil {
		return cfg, err
	}
	if cfg.Constraints, err = f.constraints(cmd); err != nil {
		return cfg, err
	}
	switch {
	case !(f.rho >= 0 && f.rho < 0.5):
		return cfg, usagef(cmd, "--rho: must lie in [0, 0.5), got %v", f.rho)
	case f.margin < 0:
		return cfg, usagef(cmd, "--margin: must not be negative, got %v", f.margin)
	case f.parallel < 0:
		return cfg, usagef(cmd, "--parallel: must not be negative, got %d", f.parallel)
	}
	shareHeap(cfg.Parallel)
	return cfg, nil
}

// electionTimeouts reads --election-timeout (empty: not an axis). An
// implementation that does not declare the knob refuses it: it would
// ignore it, and every value would measure the same store.
func electionTimeouts(cmd *cobra.Command, flag string, impl lease.Impl) ([]time.Duration, error) {
	if flag == "" {
		return nil, nil
	}
	if impl.Capabilities.ElectionTick <= 0 {
		return nil, usagef(cmd, "--election-timeout: --impl %s has no election timeout to set "+
			"(only a replicated store that declares one takes it, such as zoo/etcdraft)", impl.Name)
	}
	ds, err := tune.ParseElectionTimeouts(flag)
	if err == nil {
		err = tune.CheckElectionTimeouts(impl, ds)
	}
	if err != nil {
		return nil, usagef(cmd, "--election-timeout: %w", err)
	}
	return ds, nil
}

// constraints reads the --max-* flags; an empty one sets no limit.
func (f tuneFlags) constraints(cmd *cobra.Command) (tune.Constraints, error) {
	var c tune.Constraints
	if f.maxWrites != "" {
		v, err := tune.ParseRate(f.maxWrites)
		if err != nil {
			return c, usagef(cmd, "--max-store-writes: %w", err)
		}
		c.MaxStoreWritesPerSecond = &v
	}
	if f.maxReexec != "" {
		v, err := tune.ParseFraction(f.maxReexec)
		if err != nil {
			return c, usagef(cmd, "--max-reexecuted: %w", err)
		}
		c.MaxReexecutedFraction = &v
	}
	if f.maxFailover != "" {
		v, err := time.ParseDuration(f.maxFailover)
		if err != nil || v < 0 {
			return c, usagef(cmd, "--max-failover-p99: %q: want a non-negative duration such as 30s", f.maxFailover)
		}
		c.MaxFailoverP99 = &v
	}
	return c, nil
}

func (a *app) tune(cmd *cobra.Command, f tuneFlags) error {
	if g, err := a.tuneTarget(cmd, f); err != nil || g != nil {
		if err != nil {
			return err
		}
		return a.tuneKnobs(cmd, f, g)
	}
	cfg, err := a.tuneConfig(cmd, f)
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg.Logger = a.logger
	progress := newLabelledProgress(a.stderr, "tune", 0)
	res, err := tune.Run(ctx, cfg, progress.updateTune)
	progress.finish()
	if err != nil {
		return classifyTune(cmd, f.workload, err)
	}
	return a.showTune(res, f.json, f.out)
}

// classifyTune maps an error of tune.Run to its exit code: a bad or
// unreadable workload and a bad grid are bad input (2), naming the file;
// anything else is internal (3).
func classifyTune(cmd *cobra.Command, path string, err error) error {
	switch {
	case errors.Is(err, workload.ErrInvalid), errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return usagef(cmd, "--workload %s: %w", path, err)
	case errors.Is(err, tune.ErrInvalid):
		return usageErr(cmd, err)
	}
	var perr *fs.PathError
	if errors.As(err, &perr) {
		return usagef(cmd, "--workload %s: %w", path, err)
	}
	return classify(cmd, err)
}

// showTune prints the result of a workload's tuning run or of a
// goroutine-host implementation's knobs (no workload), writes its files,
// and returns the exit error: errViolated when a run failed, bad input
// naming the grid's flags when no configuration was valid, an internal
// error for a run interrupted before any failure.
func (a *app) showTune(res tune.Result, asJSON bool, dir string) error {
	text, grid := reports.WriteTuneText, "--ttl, --renew, --rho, --margin"
	if res.Workload == "" {
		text, grid = writeKnobTuneText, "--knob"
	}
	err := a.present(asJSON, res, func(w io.Writer) error { return text(w, res) },
		dir, func(dir string) ([]string, error) { return reports.WriteTuneDir(dir, res) })
	if err != nil {
		return err
	}
	switch {
	case res.ViolatingRuns > 0:
		return errViolated
	case res.ValidConfigs == 0:
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %s", grid, res.Explanation),
			hint: "Run 'simrun tune --help' for usage."}
	case res.Partial:
		return &exitError{code: exitInternal, err: fmt.Errorf("interrupted: PARTIAL result of %d runs, no failure among them", res.Runs)}
	}
	return nil
}
