package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/internal/batchgc"
	"github.com/leasesim/leasesim/internal/repro"
)

// The exit codes of the CLI contract.
const (
	exitOK       = 0 // every property held
	exitViolated = 1 // a property was violated, or a replay's trace hash differed
	exitUsage    = 2 // bad usage or bad input
	exitInternal = 3 // an internal error
)

func main() {
	// Every printed simrun line names the CLI as it was invoked
	// (bin/simrun, ./simrun, simrun), so that it runs as pasted.
	repro.SetProgram(os.Args[0])
	batchgc.Apply() // the GC policy for batch work, unless GOGC or GOMEMLIMIT is set
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs simrun with args, writing to stdout and stderr, and returns the
// exit code. It never panics: a panic is an internal error (exit 3).
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run under ctx: cancelling ctx interrupts a sweep as Ctrl-C
// does.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	return (&app{}).runWith(ctx, args, stdout, stderr)
}

// runWith runs simrun as a, writing to stdout and stderr.
func (a *app) runWith(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "simrun: internal error: panic: %v\n%s", p, debug.Stack())
			code = exitInternal
		}
	}()
	a.stdout, a.stderr, a.logger = stdout, stderr, slog.New(slog.DiscardHandler)
	app := a
	root := app.rootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	return app.exitCode(cmd, err)
}

// app is what every command shares: where output goes and the logger.
type app struct {
	stdout, stderr io.Writer
	verbose        bool
	logger         *slog.Logger
	// random is where random seeds come from; nil means crypto/rand.
	random io.Reader
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:     "simrun",
		Version: version(),
		Short:   "deterministic simulation and chaos testing of lease-based coordination",
		Long: "simrun runs leasesim scenarios: one seed (run), many seeds in parallel (sweep), a replay that\n" +
			"confirms the trace hash (replay), a minimal failing fault schedule (shrink), the catalogue\n" +
			"(list), the merge of sharded sweeps (merge), and the tuning of TTL, renewal and\n" +
			"checkpoint intervals against a workload (tune, workload).\n\n" +
			"Exit codes: 0 every property held; 1 a property was violated, a run stopped at a limit, a\n" +
			"replay differed, or a property was unknown (unknown is never a pass; --unknown=pass accepts it);\n" +
			"2 bad usage or bad input; 3 internal error, including a bug of the harness itself. An unknown\n" +
			"that only says a run exceeded an assumption (P1 under drift beyond rho) is counted apart and\n" +
			"never fails.\n\n" +
			"Seeds: N, a range A-B, a list such as 1-5,9, or random (random:N for N seeds), drawn once and\n" +
			"printed first. Shell completion: simrun completion bash|zsh|fish|powershell --help.",
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			if a.verbose {
				a.logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
			}
		},
	}
	root.PersistentFlags().BoolVarP(&a.verbose, "verbose", "v", false, "log the seed, derived seeds and progress to stderr")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageErr(cmd, err) })
	root.AddCommand(a.runCommand(), a.sweepCommand(), a.replayCommand(), a.shrinkCommand(),
		a.listCommand(), a.mergeCommand(), a.tuneCommand(), a.workloadCommand())
	root.AddCommand(a.checkCommand())
	root.AddCommand(a.exploreCommand())
	a.addGoroutineHost(root) // --impl NAME of a zoo module's goroutine-host implementation (gozoo_cmds.go)
	root.SetVersionTemplate("{{.Version}}\n")
	for _, c := range root.Commands() { // commands whose flags another file declares
		switch c.Name() {
		case "sweep":
			_ = c.RegisterFlagCompletionFunc("scenario", completeSweepScenarios)
			_ = c.RegisterFlagCompletionFunc("impl", completeImpls)
		case "tune":
			_ = c.RegisterFlagCompletionFunc("impl", completeImpls)
		}
	}
	return root
}

// exitCode prints err, if any, and returns the exit code it stands for.
// Errors cobra returns on its own (an unknown command or flag, a wrong
// number of arguments) are usage errors.
func (a *app) exitCode(cmd *cobra.Command, err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		ee = usageErr(cmd, err)
	}
	if ee.err != nil {
		fmt.Fprintf(a.stderr, "simrun: %v\n", ee.err)
	}
	if ee.hint != "" {
		fmt.Fprintln(a.stderr, ee.hint)
	}
	return ee.code
}
