// Command etcdstories runs the zoo/etcd stories against real etcd, each N
// times, and prints per story the verdicts of every run, the reproduction
// rate and the run directories. With -replay RUNDIR it replays one run:
// that run's story with the schedule in RUNDIR/schedule.json, N times (real
// time makes replay statistical: it reports how often the story
// reproduced). Ctrl-C ends every process it started.
//
//	go run ./cmd/etcdstories [-n 20] [-story NAME] [-out DIR]
//	go run ./cmd/etcdstories -replay RUNDIR [-n 20] [-out DIR]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/zoo/etcd"
)

func main() {
	n := flag.Int("n", 20, "repetitions of each story")
	only := flag.String("story", "", "run only this story (comma-separated)")
	out := flag.String("out", "", "where the run directories go (default: a new directory under $TMPDIR)")
	replay := flag.String("replay", "", "replay the run in this run directory (its story and schedule.json) N times")
	flag.Parse()
	if *replay != "" {
		s, err := replayStory(*replay)
		if err != nil {
			fmt.Fprintln(os.Stderr, "etcdstories: -replay:", err)
			os.Exit(2)
		}
		etcdStories = []etcd.Story{s}
		*only = s.Name
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *n, *only, *out); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "etcdstories: interrupted; every process, port and temporary directory it started is released")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "etcdstories:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n int, only, out string) error {
	if out == "" {
		d, err := os.MkdirTemp("", "leasesim-etcd-stories-")
		if err != nil {
			return err
		}
		out = d
	}
	binDir, err := os.MkdirTemp("", "leasesim-etcd-bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(binDir)
	bin, err := etcd.Build(ctx, binDir)
	if err != nil {
		return err
	}
	fmt.Printf("built etcdmember and etcdholder in %v\n", bin.BuildTime.Round(10*time.Millisecond))
	var stories []etcd.Story
	for _, s := range etcdStories {
		if only == "" || contains(strings.Split(only, ","), s.Name) {
			stories = append(stories, s)
		}
	}
	if len(stories) == 0 {
		return fmt.Errorf("no story named %q (stories: %s)", only, names())
	}
	for _, s := range stories {
		fmt.Printf("\n== %s: %s (%d runs)\n", s.Name, s.Doc, n)
		start := time.Now()
		r, err := etcd.RepeatStory(ctx, s, bin, out, n, func(i int, v *etcd.Verdict) {
			mark := " "
			if s.Reproduced(v) {
				mark = "*"
			}
			fmt.Printf("  %s run %2d: %s; P1 at own deadline: %s\n", mark, i+1, v.Line(), v.DeadlineP1.Status)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		fmt.Printf("  reproduced %s (expected %v) in %v\n", r.Rate(), s.Expect, time.Since(start).Round(time.Second))
		if len(r.Measures) > 0 {
			fmt.Print(etcd.MeasureSummary(r.Measures))
		}
		fmt.Printf("  run directories: %s\n", filepath.Join(out, s.Name))
	}
	return nil
}

// etcdStories are the stories run picks from: all of them, or the one
// -replay reads.
var etcdStories = etcd.Stories()

// replayStory returns the story of the run in dir (run.json's scenario)
// with the schedule that run applied (schedule.json).
func replayStory(dir string) (etcd.Story, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return etcd.Story{}, err
	}
	var run struct {
		Scenario string `json:"scenario"`
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		return etcd.Story{}, fmt.Errorf("%s: %w", filepath.Join(dir, "run.json"), err)
	}
	s, ok := etcd.StoryNamed(run.Scenario)
	if !ok {
		return etcd.Story{}, fmt.Errorf("%s: no story named %q (stories: %s)", filepath.Join(dir, "run.json"), run.Scenario, names())
	}
	f, err := os.Open(filepath.Join(dir, "schedule.json"))
	if err != nil {
		return etcd.Story{}, err
	}
	defer f.Close()
	sched, err := faults.Parse(f)
	if err != nil {
		return etcd.Story{}, fmt.Errorf("%s: %w", filepath.Join(dir, "schedule.json"), err)
	}
	s.Config.Schedule = sched
	s.Doc += " (replaying " + dir + ")"
	return s, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func names() string {
	var ns []string
	for _, s := range etcd.Stories() {
		ns = append(ns, s.Name)
	}
	return strings.Join(ns, ", ")
}
