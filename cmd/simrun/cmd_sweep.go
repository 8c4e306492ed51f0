package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/sweep"
)

type sweepFlags struct {
	scenario, seeds, impl, shard, out string
	parallel                          int
	json, verify                      bool
}

func (a *app) sweepCommand() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use: "sweep [--scenario NAME|all] [--seeds A-B] [--impl NAME] [--parallel N] [--shard I/N] " +
			"[--out DIR] [--json] [--verify-determinism]",
		Short: "run many seeds in parallel and summarise the failures",
		Long: "sweep runs every seed A-B of the scenarios (default: all of them, seeds 1-100) on --parallel\n" +
			"workers (default: every core), each seed single-threaded in its own world, and prints the\n" +
			"failures by property with their replay commands, or with --json the summary object.\n" +
			"--shard I/N runs only the seeds whose offset from A is I-1 modulo N, so that N machines can\n" +
			"share a sweep; simrun merge combines their summaries. --verify-determinism runs each seed\n" +
			"twice and compares trace hashes. Ctrl-C stops the sweep and prints a PARTIAL summary.\n" +
			"--out writes summary.json and sweep.html.\n" +
			"Exit 0 when every run passed, 1 when one failed, 3 when interrupted before finding a failure.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.sweep(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", allScenarios, `the scenarios: "all", a name, or names separated by commas`)
	fl.StringVar(&f.seeds, "seeds", "1-100", "the seed range A-B (inclusive), or one seed")
	fl.StringVar(&f.impl, "impl", lease.Correct().Name, `the implementation: "correct" or "mutant/NAME"`)
	fl.IntVar(&f.parallel, "parallel", 0, "runs at once (0: every core)")
	fl.StringVar(&f.shard, "shard", "1/1", "run shard I of N of the seeds")
	fl.StringVar(&f.out, "out", "", "write summary.json and sweep.html into this directory")
	fl.BoolVar(&f.json, "json", false, "print the summary as one JSON object")
	fl.BoolVar(&f.verify, "verify-determinism", false, "run each seed twice and compare trace hashes")
	return cmd
}

// config turns the flags into a sweep configuration.
func (f sweepFlags) config(cmd *cobra.Command) (sweep.Config, error) {
	var cfg sweep.Config
	var err error
	if cfg.Scenarios, err = lookupScenarios(f.scenario); err != nil {
		return cfg, usageErr(cmd, err)
	}
	if cfg.Impl, err = lookupImpl(f.impl); err != nil {
		return cfg, usageErr(cmd, err)
	}
	if cfg.Seeds, err = sweep.ParseSeeds(f.seeds); err != nil {
		return cfg, usagef(cmd, "--seeds: %w", err)
	}
	if cfg.Shard, err = sweep.ParseShard(f.shard); err != nil {
		return cfg, usagef(cmd, "--shard: %w", err)
	}
	if f.parallel < 0 {
		return cfg, usagef(cmd, "--parallel: must not be negative, got %d", f.parallel)
	}
	cfg.Parallel, cfg.VerifyDeterminism = f.parallel, f.verify
	return cfg, nil
}

func (a *app) sweep(cmd *cobra.Command, f sweepFlags) error {
	cfg, err := f.config(cmd)
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
	progress := newProgress(a.stderr, cfg.Shard.Len(cfg.Seeds)*len(cfg.Scenarios))
	cfg.Progress = progress.update
	cfg.Logger = a.logger
	sum, err := sweep.Run(ctx, cfg)
	progress.finish()
	if err != nil {
		return classify(cmd, err)
	}
	return a.showSweep(sum, f.json, f.out)
}

// showSweep prints a summary, writes its files, and returns the exit
// error: errViolated when a run failed, an internal error for a sweep
// interrupted before any failure (it did not pass, it did not finish).
func (a *app) showSweep(sum sweep.Summary, asJSON bool, dir string) error {
	// Written even when interrupted: the partial summary says so.
	err := a.present(asJSON, sum, func(w io.Writer) error { return reports.WriteSweepText(w, sum) },
		dir, func(dir string) ([]string, error) { return reports.WriteSweepDir(dir, sum) })
	if err != nil {
		return err
	}
	switch {
	case len(sum.Failures) > 0 || sum.FailuresOmitted > 0:
		return errViolated
	case sum.Partial:
		err := fmt.Errorf("interrupted: PARTIAL summary of %d of %d runs, no failure among them",
			sum.Runs, sum.RunsExpected)
		return &exitError{code: exitInternal, err: err}
	}
	return nil
}
