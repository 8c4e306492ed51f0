package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
)

// maxFailureDirs bounds the report directories sweep --out keeps for
// failing runs; the summary counts the rest.
const maxFailureDirs = 20

// failuresDir is the subdirectory of --out that holds them.
const failuresDir = "failures"

type sweepFlags struct {
	scenario, seeds, impl, shard, out, rerun string
	parallel                                 int
	json, verify                             bool
	unknown                                  unknownPolicy
}

func (a *app) sweepCommand() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use: "sweep [--scenario NAME|all] [--seeds SEEDS] [--impl NAME] [--parallel N] [--shard I/N] " +
			"[--out DIR] [--json] [--verify-determinism] [--rerun-failures SUMMARY.json] [--unknown fail|pass]",
		Short: "run many seeds in parallel and summarise the failures",
		Long: "sweep runs every seed of --seeds of the scenarios (default: all of them, seeds 1-100) on --parallel\n" +
			"workers (default: every core), each seed single-threaded in its own world, and prints the\n" +
			"failures by property with their replay commands, or with --json the summary object.\n" +
			"--shard I/N runs only the seeds whose offset from the first is I-1 modulo N, so that N machines\n" +
			"can share a sweep; simrun merge combines their summaries. --verify-determinism runs each seed\n" +
			"twice and compares trace hashes. --rerun-failures re-runs exactly the failing (scenario, seed)\n" +
			"runs of a summary (sweep --out's summary.json, or merge's), with its implementation unless\n" +
			"--impl is given. Ctrl-C stops the sweep and prints a PARTIAL summary.\n" +
			"--out writes summary.json, sweep.html, and a report directory (as run --out writes) for each\n" +
			"of the first " + strconv.Itoa(maxFailureDirs) + " failing runs under " + failuresDir + "/.\n" +
			"Exit 0 when every run passed; 1 when one failed, or had an unknown verdict under --unknown=fail\n" +
			"(an exceeded assumption never fails); 2 for bad input; 3 for a harness bug, or when interrupted\n" +
			"before finding a failure.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.sweep(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", allScenarios, `the scenarios: "all", a name, or names separated by commas`)
	fl.StringVar(&f.seeds, "seeds", "1-100", "the seeds: "+seedSetHelp)
	fl.StringVar(&f.impl, "impl", lease.Correct().Name, `the implementation: "correct", "mutant/NAME", "zoo/NAME" or a zoo module's (see simrun list)`)
	fl.IntVar(&f.parallel, "parallel", 0, "runs at once (0: every core)")
	fl.StringVar(&f.shard, "shard", "1/1", "run shard I of N of the seeds")
	fl.StringVar(&f.out, "out", "", "write summary.json, sweep.html and failing runs' report directories into this directory")
	fl.StringVar(&f.rerun, "rerun-failures", "", "re-run exactly the failing runs of this sweep summary (JSON)")
	fl.BoolVar(&f.json, "json", false, "print the summary as one JSON object")
	fl.BoolVar(&f.verify, "verify-determinism", false, "run each seed twice and compare trace hashes")
	addUnknownFlag(fl, &f.unknown)
	return cmd
}

// config turns the flags into a sweep configuration.
func (a *app) sweepConfig(cmd *cobra.Command, f sweepFlags) (sweep.Config, error) {
	var cfg sweep.Config
	var err error
	if f.rerun != "" {
		if cfg, err = a.rerunConfig(cmd, f); err != nil {
			return cfg, err
		}
	} else {
		if cfg.Scenarios, err = lookupScenarios(f.scenario); err != nil {
			return cfg, usageErr(cmd, err)
		}
		if cfg.Impl, err = lookupImpl(f.impl); err != nil {
			return cfg, usageErr(cmd, err)
		}
		if cfg.Seeds, err = a.parseSeeds(cmd, "--seeds", f.seeds); err != nil {
			return cfg, err
		}
	}
	if err := a.shardAndParallel(cmd, f, &cfg); err != nil {
		return cfg, err
	}
	shareHeap(cfg.Parallel)
	return cfg, nil
}

// shardAndParallel reads --shard, --parallel and --verify-determinism
// into cfg.
func (a *app) shardAndParallel(cmd *cobra.Command, f sweepFlags, cfg *sweep.Config) error {
	var err error
	if cfg.Shard, err = sweep.ParseShard(f.shard); err != nil {
		return usagef(cmd, "--shard: %w", err)
	}
	if f.parallel < 0 {
		return usagef(cmd, "--parallel: must not be negative, got %d", f.parallel)
	}
	cfg.Parallel, cfg.VerifyDeterminism = f.parallel, f.verify
	return nil
}

// sweepFlagsOf reads sweep's flags from cmd, for a host that wraps the
// command (the goroutine host).
func sweepFlagsOf(cmd *cobra.Command) sweepFlags {
	parallel, _ := cmd.Flags().GetInt("parallel")
	return sweepFlags{scenario: flagString(cmd, "scenario"), seeds: flagString(cmd, "seeds"), impl: flagString(cmd, "impl"),
		shard: flagString(cmd, "shard"), out: flagString(cmd, "out"), rerun: flagString(cmd, "rerun-failures"),
		parallel: parallel, json: flagBool(cmd, "json"), verify: flagBool(cmd, "verify-determinism"), unknown: policyOf(cmd)}
}

// rerunConfig reads --rerun-failures: the failing runs of a summary, with
// its implementation unless --impl says otherwise. --scenario and --seeds
// cannot be given with it.
func (a *app) rerunConfig(cmd *cobra.Command, f sweepFlags) (sweep.Config, error) {
	var cfg sweep.Config
	failing, err := a.readRerun(cmd, f)
	if err != nil {
		return cfg, err
	}
	if cfg.Scenarios, err = lookupScenarios(strings.Join(failing.Scenarios, ",")); err != nil {
		return cfg, usagef(cmd, "--rerun-failures: %s: %w", f.rerun, err)
	}
	impl := failing.impl
	if cmd.Flags().Changed("impl") {
		impl = f.impl
	}
	if cfg.Impl, err = lookupImpl(impl); err != nil {
		return cfg, usagef(cmd, "--rerun-failures: %s: %w", f.rerun, err)
	}
	a.rerunSeeds(&cfg, failing.Failing, f.rerun, cfg.Impl.Name)
	return cfg, nil
}

// rerunRuns are the failing runs of a summary, with its implementation
// and the knob settings they ran with.
type rerunRuns struct {
	sweep.Failing
	impl  string
	knobs []string
}

// readRerun reads --rerun-failures: the failing runs of a summary.
// --scenario and --seeds cannot be given with it.
func (a *app) readRerun(cmd *cobra.Command, f sweepFlags) (rerunRuns, error) {
	for _, name := range []string{"scenario", "seeds"} {
		if cmd.Flags().Changed(name) {
			return rerunRuns{}, usagef(cmd, "--%s: not with --rerun-failures, which re-runs the summary's failing runs", name)
		}
	}
	var prev sweep.Summary
	if err := readJSONFile(f.rerun, &prev); err != nil {
		return rerunRuns{}, usagef(cmd, "--rerun-failures: %w", err)
	}
	if prev.Schema != sweep.SummarySchema {
		return rerunRuns{}, usagef(cmd, "--rerun-failures: %s: schema_version %d, want %d", f.rerun, prev.Schema, sweep.SummarySchema)
	}
	failing := sweep.FailingRuns(prev)
	if len(failing.Scenarios) == 0 {
		return rerunRuns{}, usagef(cmd, "--rerun-failures: %s lists no failing run", f.rerun)
	}
	return rerunRuns{Failing: failing, impl: prev.Impl, knobs: prev.Knobs}, nil
}

// rerunSeeds sets cfg's seeds to the failing runs', and says on stderr
// how many it re-runs of impl.
func (a *app) rerunSeeds(cfg *sweep.Config, failing sweep.Failing, file, impl string) {
	cfg.ScenarioSeeds, cfg.Rerun = failing.Seeds, file
	cfg.Seeds = cfg.ScenarioSeeds[0]
	if len(failing.Seeds) > 1 {
		var all []uint64 // the union, for the summary's seeds field
		for _, set := range failing.Seeds {
			for k := range set.Count() {
				all = append(all, set.At(k))
			}
		}
		cfg.Seeds = sweep.SeedList(all...)
	}
	fmt.Fprintf(a.stderr, "--rerun-failures %s: re-running %d failing runs of %s", file, failing.Runs(), impl)
	if failing.Unlisted > 0 {
		fmt.Fprintf(a.stderr, " (up to %d more failed that the summary counts without listing)", failing.Unlisted)
	}
	fmt.Fprintln(a.stderr)
}

func (a *app) sweep(cmd *cobra.Command, f sweepFlags) error {
	cfg, err := a.sweepConfig(cmd, f)
	if err != nil {
		return err
	}
	return a.sweepWith(cmd, f, cfg, func(sum *sweep.Summary) error { return a.keepFailures(cfg, sum, f.out, f.json) })
}

// sweepWith runs the sweep cfg describes, on whichever host cfg names,
// with a progress bar, keeps the failing runs' report directories with
// keep when --out is given, and shows the summary.
func (a *app) sweepWith(cmd *cobra.Command, f sweepFlags, cfg sweep.Config, keep func(*sweep.Summary) error) error {
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	progress := newProgress(a.stderr, 0) // the sweep says how many runs it holds, skipped scenarios left out
	cfg.Progress = progress.update
	cfg.Logger = a.logger
	sum, err := sweep.Run(ctx, cfg)
	progress.finish()
	var hp *scenarios.HarnessPanic
	switch {
	case errors.As(err, &hp):
		return &exitError{code: exitInternal, err: fmt.Errorf("internal error: %w (a bug of leasesim, not of %s)\n%s",
			err, sum.Impl, hp.Stack)}
	case err != nil:
		return classify(cmd, err)
	}
	if f.out != "" {
		if err := keep(&sum); err != nil {
			return err
		}
	}
	return a.showSweep(sum, f.json, f.out, f.unknown, false)
}

// keepFailures writes a report directory, as run --out does, for each of
// the first maxFailureDirs failing runs of sum, under dir/failures, and
// records each one's path (relative to dir) in its Failure. The runs are
// executed again: they are deterministic, and the sweep kept no outcome.
func (a *app) keepFailures(cfg sweep.Config, sum *sweep.Summary, dir string, asJSON bool) error {
	byName := map[string]scenarios.Scenario{}
	for _, sc := range cfg.Scenarios {
		byName[sc.Name] = sc
	}
	return keepFailureDirs(a, sum, dir, asJSON, func(f *sweep.Failure, path string) (bool, error) {
		opts := scenarios.Options{Impl: cfg.Impl, Check: cfg.Check, Logger: a.logger}
		opts.Check.Visualize = true
		start := time.Now()
		out, err := scenarios.Execute(byName[f.Scenario], f.Seed, opts)
		if err != nil { // it could not start (the "error" property): nothing to report
			return false, nil
		}
		run, data := reports.EventRun(out, time.Since(start))
		run.Replay = f.Replay
		if _, err := reports.WriteRunDir(path, run, data); err != nil {
			return false, internalErr(err)
		}
		return true, nil
	})
}

// keepFailureDirs writes, with write, a report directory for each of the
// first maxFailureDirs failing runs of sum that write can report, under
// dir/failures, records each one's path (relative to dir) in its Failure,
// and says so.
func keepFailureDirs(a *app, sum *sweep.Summary, dir string, asJSON bool, write func(f *sweep.Failure, path string) (bool, error)) error {
	kept := 0
	for i := range sum.Failures {
		if kept == maxFailureDirs {
			break
		}
		f := &sum.Failures[i]
		rel := filepath.Join(failuresDir, fmt.Sprintf("%s-seed-%d", f.Scenario, f.Seed))
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(path, 0o755); err != nil {
			return internalErr(err)
		}
		ok, err := write(f, path)
		if err != nil {
			return err
		}
		if ok {
			f.Dir = rel
			kept++
		}
	}
	if kept > 0 {
		more := ""
		if rest := sum.Failed() - kept; rest > 0 {
			more = fmt.Sprintf(" (the first %d; %d more failing runs have none)", kept, rest)
		}
		fmt.Fprintf(a.notes(asJSON), "wrote a report directory for %s under %s%s\n",
			plural(kept, "failing run"), filepath.Join(dir, failuresDir), more)
	}
	return nil
}

// plural writes "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// showSweep prints a summary, writes its files, and returns the exit
// error: by the verdict rule (exitForVerdicts) on failing and unknown
// runs; for a summary that is partial and found no failure, an internal
// error when interrupted (it did not pass, it did not finish), and a usage
// error when shards are missing, unless allowPartial.
func (a *app) showSweep(sum sweep.Summary, asJSON bool, dir string, policy unknownPolicy, allowPartial bool) error {
	// Written even when partial: the partial summary says so.
	err := a.present(asJSON, sum, func(w io.Writer) error { return reports.WriteSweepText(w, sum) },
		dir, func(dir string) ([]string, error) { return reports.WriteSweepDir(dir, sum) })
	if err != nil {
		return err
	}
	if len(sum.MissingShards) > 0 && !allowPartial {
		missing := fmt.Errorf("incomplete: shards %s missing (%d of %d runs merged); merge every shard's summary, "+
			"or give --allow-partial to accept a partial merge", strings.Join(sum.MissingShards, ", "), sum.Runs, sum.RunsExpected)
		if sum.Failed() > 0 {
			fmt.Fprintf(a.stderr, "simrun: %v\n", missing)
			return errViolated
		}
		return &exitError{code: exitUsage, err: missing}
	}
	verdict := verdictErr(sum.Failed(), sum.UnknownRuns, policy, unknownReasons(sum))
	if verdict != nil || !sum.Partial || allowPartial {
		return verdict
	}
	return &exitError{code: exitInternal, err: fmt.Errorf("interrupted: PARTIAL summary of %d of %d runs, no failure among them",
		sum.Runs, sum.RunsExpected)}
}

// unknownReasons says how many runs were unknown, and why.
func unknownReasons(sum sweep.Summary) string {
	parts := []string{plural(sum.UnknownRuns, "run")}
	for _, reason := range slices.Sorted(maps.Keys(sum.UnknownReasons)) {
		parts = append(parts, fmt.Sprintf("%d: %s", sum.UnknownReasons[reason], reason))
	}
	return strings.Join(parts, "; ")
}
