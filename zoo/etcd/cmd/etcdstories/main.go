// Command etcdstories runs the zoo/etcd stories against real etcd, each N
// times (seeds 1 to N), and prints per story the verdicts of every run, the
// reproduction rate and the run directories (report.html, history.jsonl,
// trace.perfetto.json and the rest, as simrun writes them). With -replay
// RUNDIR it replays one run: that run's story with the schedule in
// RUNDIR/schedule.json, N times (real time makes replay statistical: it
// reports how often the story reproduced). Ctrl-C ends every process it
// started. Bad usage exits 2 before anything is built or created.
//
//	go run ./cmd/etcdstories [-n 20] [-story NAME,...] [-out DIR]
//	go run ./cmd/etcdstories -replay RUNDIR [-n 20] [-out DIR]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/zoo/etcd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command line's, checked.
type options struct {
	n        int
	stories  []etcd.Story
	out      string
	schedule *faults.Schedule
}

// errUsage marks bad usage (exit 2).
var errUsage = errors.New("usage")

// run runs the command with args and returns its exit code: 0 done, 1 a
// run failed, 2 bad usage, 130 interrupted.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	env := &etcd.Env{}
	opts, err := parse(env, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "etcdstories:", err)
		return 2
	}
	if err := runStories(ctx, env, opts, stdout); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "etcdstories: interrupted; every process, port and temporary directory it started is released")
			return 130
		}
		fmt.Fprintln(stderr, "etcdstories:", err)
		return 1
	}
	return 0
}

// parse reads the flags; every error names its flag.
func parse(env *etcd.Env, args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("etcdstories", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 20, "repetitions of each story (seeds 1 to n)")
	only := fs.String("story", "", "run only these stories (comma-separated): "+strings.Join(env.StoryNames(), ", "))
	out := fs.String("out", "", "where the run directories go (default: a new directory under $TMPDIR)")
	replay := fs.String("replay", "", "replay the run in this run directory (its story and schedule.json) N times")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("%w: unexpected argument %q (flags only)", errUsage, fs.Arg(0))
	}
	if *n < 1 {
		return options{}, fmt.Errorf("%w: -n: %d is not a number of runs (want 1 or more)", errUsage, *n)
	}
	o := options{n: *n, out: *out}
	if *replay != "" {
		s, sched, err := replayStory(env, *replay)
		if err != nil {
			return options{}, fmt.Errorf("%w: -replay: %w", errUsage, err)
		}
		o.stories, o.schedule = []etcd.Story{s}, &sched
		return o, nil
	}
	for _, s := range env.Stories() {
		if *only == "" || slices.Contains(strings.Split(*only, ","), s.Name) {
			o.stories = append(o.stories, s)
		}
	}
	for _, name := range strings.Split(*only, ",") {
		if _, ok := env.StoryNamed(name); *only != "" && !ok {
			return options{}, fmt.Errorf("%w: -story: no story named %q (stories: %s)", errUsage, name,
				strings.Join(env.StoryNames(), ", "))
		}
	}
	return o, nil
}

// runStories builds the binaries and runs every story n times.
func runStories(ctx context.Context, env *etcd.Env, o options, stdout io.Writer) error {
	if o.out == "" {
		d, err := os.MkdirTemp("", "leasesim-etcd-stories-")
		if err != nil {
			return err
		}
		o.out = d
	}
	binDir, err := os.MkdirTemp("", "leasesim-etcd-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(binDir)
	if env.Bin, err = etcd.Build(ctx, binDir); err != nil {
		return err
	}
	env.Dir = o.out
	fmt.Fprintf(stdout, "built etcdmember and etcdholder in %v\n", env.Bin.BuildTime.Round(10*time.Millisecond))
	for _, s := range o.stories {
		fmt.Fprintf(stdout, "\n== %s: %s (%d runs)\n", s.Name, s.Doc, o.n)
		start := time.Now()
		r, err := env.Repeat(ctx, s, o.n, o.schedule, func(out *scenarios.Outcome) {
			mark := " "
			if s.Reproduced(out) {
				mark = "*"
			}
			fmt.Fprintf(stdout, "  %s seed %2d: %s\n", mark, out.Seed, verdicts(out))
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		fmt.Fprintf(stdout, "  reproduced %s (expected %v) in %v\n", r.Rate(), s.Expect, time.Since(start).Round(time.Second))
		if len(r.Measures) > 0 {
			fmt.Fprint(stdout, etcd.MeasureSummary(r.Measures))
		}
		fmt.Fprintf(stdout, "  run directories: %s\n", filepath.Join(o.out, s.Name))
	}
	return nil
}

// verdicts is an outcome's verdicts on one line: "P1 ok, P2 ok, …".
func verdicts(out *scenarios.Outcome) string {
	var parts []string
	for _, r := range out.Checks {
		parts = append(parts, fmt.Sprintf("%s %s", r.Property, r.Status))
	}
	return strings.Join(parts, ", ")
}

// replayStory returns the story of the run in dir (run.json's scenario)
// and the schedule that run applied (schedule.json).
func replayStory(env *etcd.Env, dir string) (etcd.Story, faults.Schedule, error) {
	path := filepath.Join(dir, "run.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return etcd.Story{}, faults.Schedule{}, err
	}
	var run struct {
		Scenario string `json:"scenario"`
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		return etcd.Story{}, faults.Schedule{}, fmt.Errorf("%s: %w", path, err)
	}
	s, ok := env.StoryNamed(run.Scenario)
	if !ok {
		return etcd.Story{}, faults.Schedule{}, fmt.Errorf("%s: scenario: no story named %q (stories: %s)", path,
			run.Scenario, strings.Join(env.StoryNames(), ", "))
	}
	path = filepath.Join(dir, "schedule.json")
	f, err := os.Open(path)
	if err != nil {
		return etcd.Story{}, faults.Schedule{}, err
	}
	defer f.Close()
	sched, err := faults.Parse(f)
	if err != nil {
		return etcd.Story{}, faults.Schedule{}, fmt.Errorf("%s: %w", path, err)
	}
	s.Doc += " (replaying " + dir + ")"
	return s, sched, nil
}
