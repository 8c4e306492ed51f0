package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/sim"
	"github.com/leasesim/leasesim/workload"
)

func (a *app) workloadCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workload gen|from-events",
		Short: "write workloads: synthetic ones, or one recorded from a lease event log",
		Long: "workload writes workloads in the JSON-lines format simrun tune replays (see workload/doc.go and\n" +
			"examples/README.md): gen draws a synthetic one from a few parameters, from-events turns the lease\n" +
			"library's observer log of a real run into one.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef(cmd, "give a subcommand: gen or from-events")
		},
	}
	cmd.AddCommand(a.workloadGenCommand(), a.fromEventsCommand())
	return cmd
}

// genFlags are the parameters of workload.GenParams, as flags.
type genFlags struct {
	p                                 workload.GenParams
	latency, unitTimeDist             string
	gcPerMinute                       float64
	gcP50, gcP99, gcMax, restartAfter time.Duration
	seed                              uint64
	out                               string
}

func (a *app) workloadGenCommand() *cobra.Command {
	var f genFlags
	cmd := &cobra.Command{
		Use:   "gen [flags] [-o FILE]",
		Short: "write a synthetic workload",
		Long: "gen writes a synthetic workload drawn from --seed: Poisson arrivals (--tasks-per-minute) and bursts\n" +
			"(--burst-size every --burst-every, spread over --burst-spread), task sizes from --units-min to\n" +
			"--units-max (uniform, or Pareto with --units-alpha), a unit time (--unit-time, or --unit-time-dist for\n" +
			"each run to draw from), the environment (--latency, --loss, GC pauses with --gc-*, random crashes\n" +
			"with --crash-per-hour), rolling deploys (--deploy-every), a worker crash in turn every --crash-every\n" +
			"and pauses of the lease store's leader (--leader-pause for every --leader-pause-every; a store of one\n" +
			"grantor pauses its grantor). The same flags and seed give the same\n" +
			"bytes. A distribution is fixed:D, uniform:MIN:MAX or pareto:MIN:MAX:ALPHA.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.workloadGen(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.p.Name, "name", "synthetic", "the workload's name")
	fl.IntVar(&f.p.Workers, "workers", 4, "how many workers run the tasks")
	fl.DurationVar(&f.p.Duration, "duration", 20*time.Minute, "how long the workload lasts")
	fl.Float64Var(&f.p.TasksPerMinute, "tasks-per-minute", 15, "the rate of Poisson arrivals (0: none)")
	fl.IntVar(&f.p.BurstSize, "burst-size", 0, "tasks per burst")
	fl.DurationVar(&f.p.BurstEvery, "burst-every", 0, "time between bursts (0: no bursts)")
	fl.DurationVar(&f.p.BurstSpread, "burst-spread", 0, "how long a burst's arrivals are spread over")
	fl.IntVar(&f.p.UnitsMin, "units-min", 10, "the fewest units of work a task has")
	fl.IntVar(&f.p.UnitsMax, "units-max", 40, "the most units of work a task has")
	fl.Float64Var(&f.p.UnitsAlpha, "units-alpha", 0, "Pareto tail index of task sizes (0: uniform sizes)")
	fl.DurationVar(&f.p.UnitTime, "unit-time", 250*time.Millisecond, "how long one unit of work takes")
	fl.StringVar(&f.unitTimeDist, "unit-time-dist", "", "a distribution of unit times instead of --unit-time (uniform:100ms:400ms)")
	fl.StringVar(&f.latency, "latency", "", "the one-way message delay (default uniform:1ms:5ms)")
	fl.Float64Var(&f.p.Env.Loss, "loss", 0, "the probability that a message is lost")
	fl.Float64Var(&f.gcPerMinute, "gc-per-minute", 0, "GC pauses per worker and minute (0: none)")
	fl.DurationVar(&f.gcP50, "gc-p50", 20*time.Millisecond, "the median GC pause")
	fl.DurationVar(&f.gcP99, "gc-p99", 300*time.Millisecond, "the 99th percentile GC pause")
	fl.DurationVar(&f.gcMax, "gc-max", 2*time.Second, "the longest GC pause")
	fl.Float64Var(&f.p.Env.CrashPerHour, "crash-per-hour", 0, "random crashes per worker and hour")
	fl.DurationVar(&f.restartAfter, "restart-after", workload.DefaultRestartAfter, "how long a crashed worker stays down")
	fl.DurationVar(&f.p.DeployEvery, "deploy-every", 0, "time between rolling deploys (0: none)")
	fl.DurationVar(&f.p.DeploySpacing, "deploy-spacing", 30*time.Second, "time between two workers' restarts in a deploy")
	fl.DurationVar(&f.p.DeployDown, "deploy-down", 15*time.Second, "how long each worker is down in a deploy")
	fl.DurationVar(&f.p.CrashEvery, "crash-every", 0, "crash one worker, in turn, this often (0: never); each is down --restart-after")
	fl.DurationVar(&f.p.LeaderPauseEvery, "leader-pause-every", 0, "pause the lease store's leader this often (0: never)")
	fl.DurationVar(&f.p.LeaderPause, "leader-pause", 5*time.Second, "how long each leader pause lasts")
	fl.Uint64Var(&f.seed, "seed", 1, "the seed the workload is drawn from")
	fl.StringVarP(&f.out, "output", "o", "", "write the workload to this file (default: stdout)")
	return cmd
}

// params completes the generation parameters from the flags.
func (f genFlags) params(cmd *cobra.Command) (workload.GenParams, error) {
	p := f.p
	if cmd.Flags().Changed("restart-after") {
		p.Env.RestartAfter = f.restartAfter
	}
	if f.latency != "" {
		d, err := parseDist(f.latency)
		if err != nil {
			return p, usagef(cmd, "--latency: %w", err)
		}
		p.Env.Latency = &d
	}
	if f.unitTimeDist != "" {
		d, err := parseDist(f.unitTimeDist)
		if err != nil {
			return p, usagef(cmd, "--unit-time-dist: %w", err)
		}
		p.UnitTimeDist, p.UnitTime = &d, 0
	}
	if f.gcPerMinute != 0 {
		p.Env.GCPause = &workload.GCPause{PerMinute: f.gcPerMinute, P50: f.gcP50, P99: f.gcP99, Max: f.gcMax}
	}
	if p.DeployEvery == 0 {
		p.DeploySpacing, p.DeployDown = 0, 0
	}
	if p.LeaderPauseEvery == 0 {
		p.LeaderPause = 0
	}
	if err := p.Validate(); err != nil {
		return p, usageErr(cmd, genFlagError(err))
	}
	return p, nil
}

func (a *app) workloadGen(cmd *cobra.Command, f genFlags) error {
	p, err := f.params(cmd)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(f.seed, 0))
	return a.writeOutput(cmd, f.out, func(w io.Writer) error {
		if err := workload.Generate(p, r, w); err != nil {
			return usageErr(cmd, genFlagError(err))
		}
		return nil
	})
}

// genFields maps the names GenParams.Validate reports to the flags that
// set them, most specific first.
var genFields = []struct{ field, flag string }{
	{"env.gc_pause.per_minute", "--gc-per-minute"}, {"env.gc_pause.p50", "--gc-p50"},
	{"env.gc_pause.p99", "--gc-p99"}, {"env.gc_pause.max", "--gc-max"},
	{"env.latency", "--latency"}, {"env.loss", "--loss"}, {"env.crash_per_hour", "--crash-per-hour"},
	{"env.restart_after", "--restart-after"}, {"tasks_per_minute", "--tasks-per-minute"},
	{"burst_every", "--burst-every"}, {"burst_spread", "--burst-spread"}, {"burst_size", "--burst-size"},
	{"units_min", "--units-min"}, {"units_max", "--units-max"}, {"units_alpha", "--units-alpha"},
	{"unit_time_dist", "--unit-time-dist"}, {"unit_time", "--unit-time"}, {"units", "--units-max"},
	{"deploy_every", "--deploy-every"}, {"deploy_spacing", "--deploy-spacing"}, {"deploy_down", "--deploy-down"},
	{"crash_every", "--crash-every"}, {"leader_pause_every", "--leader-pause-every"}, {"leader_pause", "--leader-pause"},
	{"workers", "--workers"}, {"duration", "--duration"}, {"name", "--name"},
}

// genFlagError rewrites an error of GenParams.Validate ("workload: gen:
// units_min: want 1 <= units_min <= units_max …") to name the flag
// ("--units-min: want 1 <= --units-min <= --units-max …").
func genFlagError(err error) error {
	msg, ok := strings.CutPrefix(err.Error(), "workload: gen: ")
	if !ok {
		return err
	}
	field, rest, found := strings.Cut(msg, ": ")
	if !found {
		return err
	}
	for _, g := range genFields {
		if field == g.field || strings.HasPrefix(field, g.field+".") {
			for _, h := range genFields {
				if strings.Contains(h.field, "_") && !strings.Contains(h.field, ".") {
					rest = strings.ReplaceAll(rest, h.field, h.flag)
				}
			}
			if sub, ok := strings.CutPrefix(field, g.field+"."); ok {
				rest = sub + ": " + rest // a part of a distribution: "--latency: max: …"
			}
			return fmt.Errorf("%s: %s", g.flag, rest)
		}
	}
	return err
}

// parseDist reads a distribution: fixed:D, uniform:MIN:MAX or
// pareto:MIN:MAX:ALPHA.
func parseDist(s string) (sim.Dist, error) {
	parts := strings.Split(s, ":")
	durations := func(n int) ([]time.Duration, error) {
		out := make([]time.Duration, n)
		for i := range out {
			d, err := time.ParseDuration(parts[i+1])
			if err != nil {
				return nil, fmt.Errorf("%q: %q is not a duration", s, parts[i+1])
			}
			out[i] = d
		}
		return out, nil
	}
	var d sim.Dist
	switch {
	case parts[0] == "fixed" && len(parts) == 2:
		v, err := durations(1)
		if err != nil {
			return d, err
		}
		d = sim.FixedDist(v[0])
	case parts[0] == "uniform" && len(parts) == 3:
		v, err := durations(2)
		if err != nil {
			return d, err
		}
		d = sim.UniformDist(v[0], v[1])
	case parts[0] == "pareto" && len(parts) == 4:
		v, err := durations(2)
		if err != nil {
			return d, err
		}
		alpha, err := strconv.ParseFloat(parts[3], 64)
		if err != nil {
			return d, fmt.Errorf("%q: alpha %q is not a number", s, parts[3])
		}
		d = sim.ParetoDist(v[0], v[1], alpha)
	default:
		return d, fmt.Errorf("%q: want fixed:D, uniform:MIN:MAX or pareto:MIN:MAX:ALPHA", s)
	}
	if err := d.Validate(); err != nil {
		return d, fmt.Errorf("%q: %w", s, err)
	}
	return d, nil
}

type fromEventsFlags struct {
	opts workload.FromEventsOptions
	out  string
}

func (a *app) fromEventsCommand() *cobra.Command {
	var f fromEventsFlags
	cmd := &cobra.Command{
		Use:   "from-events LOG [-o FILE] [--name NAME] [--renew-interval D] [--pause-factor F] [--units-per-checkpoint N] [--loss P] [--crashes-as-rate]",
		Short: "turn a lease observer log into a workload",
		Long: "from-events reads LOG, the JSON lines lease.NewJSONLinesObserver writes (for example from the\n" +
			"real-time runtime; \"-\" reads stdin), and writes the workload it implies: tasks with their arrivals\n" +
			"and sizes, observed crashes and restarts, and the latency and pause distributions. What it read and\n" +
			"estimated goes to stderr. Its heuristics are documented on workload.FromEvents.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.fromEvents(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.opts.Name, "name", "from-events", "the workload's name")
	fl.DurationVar(&f.opts.RenewInterval, "renew-interval", 0, "the holders' renew interval (0: estimate it from the log)")
	fl.Float64Var(&f.opts.PauseFactor, "pause-factor", 2, "a silence longer than this many renew intervals is a pause")
	fl.IntVar(&f.opts.UnitsPerCheckpoint, "units-per-checkpoint", 1, "units of work a checkpoint stands for")
	fl.Float64Var(&f.opts.Loss, "loss", 0, "the message loss to write (the log does not show it)")
	fl.BoolVar(&f.opts.CrashesAsRate, "crashes-as-rate", false, "write observed crashes as a crash rate, not as events")
	fl.StringVarP(&f.out, "output", "o", "", "write the workload to this file (default: stdout)")
	return cmd
}

// validate checks the options, naming the flag.
func (f fromEventsFlags) validate(cmd *cobra.Command) error {
	o := f.opts
	switch {
	case o.Name == "":
		return usagef(cmd, "--name: must not be empty")
	case o.RenewInterval < 0:
		return usagef(cmd, "--renew-interval: must not be negative, got %v", o.RenewInterval)
	case !(o.PauseFactor > 1 && o.PauseFactor <= 1000):
		return usagef(cmd, "--pause-factor: must be in (1, 1000], got %v", o.PauseFactor)
	case o.UnitsPerCheckpoint < 1 || o.UnitsPerCheckpoint > workload.MaxUnits:
		return usagef(cmd, "--units-per-checkpoint: must be in [1, %d], got %d", workload.MaxUnits, o.UnitsPerCheckpoint)
	case !(o.Loss >= 0 && o.Loss <= 1):
		return usagef(cmd, "--loss: must be a probability in [0, 1], got %v", o.Loss)
	}
	return nil
}

func (a *app) fromEvents(cmd *cobra.Command, log string, f fromEventsFlags) error {
	if err := f.validate(cmd); err != nil {
		return err
	}
	in, closeIn, err := openInput(log)
	if err != nil {
		return usageErr(cmd, err)
	}
	defer closeIn()
	var sum workload.Summary
	err = a.writeOutput(cmd, f.out, func(w io.Writer) error {
		var err error
		sum, err = workload.FromEvents(in, w, f.opts)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, workload.ErrInvalid):
			return usagef(cmd, "%s: %w", log, err)
		}
		return classify(cmd, fmt.Errorf("%s: %w", log, err))
	})
	if err != nil {
		return err
	}
	writeSummary(a.stderr, sum)
	return nil
}

// writeSummary tells what FromEvents read and estimated.
func writeSummary(w io.Writer, s workload.Summary) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("from-events: %d lines, %d events; %d holders became workers w1..w%d (%s)", s.Lines, s.Events,
		len(s.Holders), len(s.Holders), strings.Join(s.Holders, ", "))
	p("  tasks: %d granted, %d completed; crashes %d, restarts %d", s.Tasks, s.Completed, s.Crashes, s.Restarts)
	how := "given"
	if s.Estimated {
		how = "estimated"
	}
	p("  renew interval %v (%s); %d renewals, %d timed out", s.RenewInterval, how, s.Renewals, s.RenewTimeouts)
	if s.LatencySamples > 0 {
		p("  latency: %d samples, p50 %v, p99 %v, max %v", s.LatencySamples, s.LatencyP50, s.LatencyP99, s.LatencyMax)
	}
	if s.Pauses > 0 {
		p("  pauses: %d, p50 %v, p99 %v, max %v; %g a minute per worker", s.Pauses, s.PauseP50, s.PauseP99, s.PauseMax, s.PausesPerMinute)
	}
	p("  workload %q: %d workers, %v", s.Header.Name, s.Header.Workers, s.Header.Duration)
}

// writeOutput runs write into the file at path, or into stdout when path
// is empty. A file is written to a temporary file next to it, synced, and
// renamed into place when write succeeds (renameio), so a failure or a
// crash leaves no half-written workload behind.
func (a *app) writeOutput(cmd *cobra.Command, path string, write func(io.Writer) error) error {
	if path == "" {
		return write(a.stdout)
	}
	pf, err := renameio.NewPendingFile(path)
	if err != nil {
		return usagef(cmd, "-o: %w", err)
	}
	defer pf.Cleanup() // after a successful replace, there is nothing left to clean up
	if err := write(pf); err != nil {
		return err
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return usagef(cmd, "-o: %w", err)
		}
		return internalErr(fmt.Errorf("-o %s: %w", path, err))
	}
	fmt.Fprintf(a.stderr, "wrote %s\n", path)
	return nil
}
