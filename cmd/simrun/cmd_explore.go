package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/explore"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/reports"
)

// exploreSchemaVersion is the version of explore's JSON object.
const exploreSchemaVersion = 1

// corpusDir is the directory under --out that holds the corpus.
const corpusDir = "corpus"

type exploreFlags struct {
	scenario, impl, seedArg, out string
	budget, maxAttempts          int
	json                         bool
}

// exploreResult is explore's JSON object.
type exploreResult struct {
	SchemaVersion int            `json:"schema_version"`
	Scenario      string         `json:"scenario"`
	Impl          string         `json:"impl"`
	Seed          uint64         `json:"explorer_seed"`
	Budget        int            `json:"budget"`
	Runs          int            `json:"runs"`
	Corpus        int            `json:"corpus"`
	Reached       []string       `json:"reached"`
	Unreached     []string       `json:"unreached"`
	NotApplicable []string       `json:"not_applicable"`
	Steps         []explore.Step `json:"steps"`
	Failure       *exploreFound  `json:"failure,omitempty"`
}

// exploreFound is the violation explore found, shrunk: shrink's object
// for the failing run, and how many runs the search took to find it.
type exploreFound struct {
	Run int `json:"run"` // runs to the first failure
	shrinkResult
}

func (a *app) exploreCommand() *cobra.Command {
	var f exploreFlags
	cmd := &cobra.Command{
		Use:   "explore [--scenario NAME] [--impl NAME] [--seed N|random] [--budget RUNS] [--out DIR] [--json]",
		Short: "search fault schedules for a violation, guided by the behaviours each run reached",
		Long: "explore runs a scenario against an implementation up to --budget times (default " +
			strconv.Itoa(explore.DefaultBudget) + "), as a\n" +
			"coverage-guided fuzzer does: it keeps a corpus of the runs that reached a behaviour, or a count of\n" +
			"one, that no run before had, and mutates and splices their fault schedules (adds, removes, shifts\n" +
			"and stretches faults, moves them to another node, arms failpoints at protocol moments: on-reply,\n" +
			"after-request, after-write, before-write), favouring those that reached rare behaviours. It stops\n" +
			"at the first violated property, shrinks that run's schedule as simrun shrink does, and prints\n" +
			"the shrunk schedule, the runs it took and the command that replays it; or, within the budget, the\n" +
			"behaviours reached and never reached. --seed is the explorer's seed: the same seed makes the same\n" +
			"runs and finds the same failure on any machine. Event-host scenarios only. --json prints one\n" +
			"object (schema_version " + strconv.Itoa(exploreSchemaVersion) + ").\n" +
			"--out writes schedule.json (the shrunk schedule, when a property was violated) and the corpus\n" +
			"under corpus/, one schedule per input, named by its place in the corpus and its seed.\n\n" +
			"Exit 0 when no property was violated within the budget; 1 when one was; 2 for bad input; 3 for an\n" +
			"internal error or a harness bug.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.explore(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", "swarm", "the scenario to explore (see simrun list)")
	fl.StringVar(&f.impl, "impl", lease.Correct().Name, `the implementation: "correct", "mutant/NAME" or "zoo/NAME" (see simrun list)`)
	fl.StringVar(&f.seedArg, "seed", "1", "the explorer's seed: N, or random (drawn and printed first)")
	fl.IntVar(&f.budget, "budget", explore.DefaultBudget, "the most runs to make, shrinking not counted")
	fl.IntVar(&f.maxAttempts, "max-attempts", explore.DefaultShrinkAttempts, "the most runs to spend shrinking a failure")
	fl.StringVar(&f.out, "out", "", "write schedule.json and the corpus into this directory")
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object (progress goes to stderr)")
	_ = cmd.RegisterFlagCompletionFunc("scenario", completeScenarios)
	_ = cmd.RegisterFlagCompletionFunc("impl", completeImpls)
	return cmd
}

func (a *app) explore(cmd *cobra.Command, f exploreFlags) error {
	cfg, err := a.exploreConfig(cmd, f)
	if err != nil {
		return err
	}
	notes := a.notes(f.json)
	fmt.Fprintf(notes, "exploring %s with %s: explorer seed %d, budget %d runs\n", cfg.Scenario.Name, cfg.Impl.Name,
		cfg.Seed, cfg.Budget)
	cfg.Progress = func(st explore.Step) {
		if len(st.New) > 0 {
			fmt.Fprintf(notes, "  run %d (%s, seed %d): %d behaviours, corpus %d; new: %s\n", st.Run, st.Origin,
				st.Seed, st.Reached, st.Corpus, strings.Join(st.New, ", "))
		}
	}
	res, err := explore.Explore(cfg)
	switch {
	case errors.Is(err, explore.ErrInvalid):
		return usagef(cmd, "--scenario %s: %w", f.scenario, err)
	case err != nil:
		return classify(cmd, err)
	}
	out := exploreResult{SchemaVersion: exploreSchemaVersion, Scenario: res.Scenario, Impl: res.Impl, Seed: res.Seed,
		Budget: cfg.Budget, Runs: res.Runs, Corpus: len(res.Corpus), Reached: res.Reached, Unreached: res.Unreached,
		NotApplicable: res.NotApplicable, Steps: res.Steps}
	if f.out != "" {
		if err := writeCorpus(f.out, res.Corpus); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
	}
	if res.Failure != nil {
		if out.Failure, err = foundOf(res, f.out); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
	}
	if f.json {
		if err := writeJSON(a.stdout, out); err != nil {
			return internalErr(err)
		}
	} else {
		printExplore(a.stdout, out, res)
	}
	if out.Failure != nil {
		return &exitError{code: exitViolated}
	}
	return nil
}

// exploreConfig reads the flags.
func (a *app) exploreConfig(cmd *cobra.Command, f exploreFlags) (explore.Config, error) {
	sc, err := lookupScenario(f.scenario)
	if err != nil {
		return explore.Config{}, usageErr(cmd, err)
	}
	if sc.Goroutines != nil {
		return explore.Config{}, usagef(cmd, "--scenario %s: runs on the goroutine host; explore searches event-host scenarios only", f.scenario)
	}
	impl, err := lookupImpl(f.impl)
	if err != nil {
		return explore.Config{}, usageErr(cmd, err)
	}
	seed, err := a.parseSeed(cmd, "--seed", f.seedArg)
	if err != nil {
		return explore.Config{}, err
	}
	switch {
	case f.budget < 1 || f.budget > explore.MaxBudget:
		return explore.Config{}, usagef(cmd, "--budget: must lie in [1, %d], got %d", explore.MaxBudget, f.budget)
	case f.maxAttempts < 1:
		return explore.Config{}, usagef(cmd, "--max-attempts: must be at least 1, got %d", f.maxAttempts)
	}
	return explore.Config{Scenario: sc, Impl: impl, Seed: seed, Budget: f.budget, ShrinkAttempts: f.maxAttempts}, nil
}

// foundOf describes res's failure, writing the shrunk schedule under dir
// if one is given; without, the replay line pipes the schedule in.
func foundOf(res explore.Result, dir string) (*exploreFound, error) {
	fl := res.Failure
	found := &exploreFound{Run: fl.Run, shrinkResult: shrinkResult{SchemaVersion: shrinkSchemaVersion,
		Scenario: res.Scenario, Impl: res.Impl, Seed: fl.Input.Seed,
		Property: fl.Violated.Property, Name: fl.Violated.Name, Summary: fl.Violated.Summary,
		EventsBefore: len(fl.Input.Schedule.Events), EventsAfter: len(fl.Shrunk.Events), Attempts: fl.ShrinkRuns,
		Exhausted: fl.ShrinkExhausted, Schedule: fl.Shrunk}}
	if dir == "" {
		b, err := json.Marshal(fl.Shrunk)
		if err != nil {
			return nil, err
		}
		found.Replay = repro.Piped(string(b), res.Replay("-"))
		return found, nil
	}
	found.ScheduleFile = filepath.Join(dir, reports.ScheduleFile)
	if err := writeSchedule(found.ScheduleFile, fl.Shrunk); err != nil {
		return nil, err
	}
	found.Replay = res.Replay(found.ScheduleFile)
	return found, nil
}

// writeCorpus writes each corpus input's schedule under dir/corpus, named
// by its place in the corpus and its seed (0007-seed-123.json): the seed
// and the file replay it.
func writeCorpus(dir string, corpus []explore.Input) error {
	for i, in := range corpus {
		name := fmt.Sprintf("%04d-seed-%d.json", i+1, in.Seed)
		if err := writeSchedule(filepath.Join(dir, corpusDir, name), in.Schedule); err != nil {
			return err
		}
	}
	return nil
}

// printExplore prints the outcome of a search as text.
func printExplore(w io.Writer, out exploreResult, res explore.Result) {
	if fl := out.Failure; fl != nil {
		fmt.Fprintf(w, "run %d of %d (seed %d) violates %s %s: %s\n", fl.Run, out.Budget, fl.Seed, fl.Property,
			fl.Name, fl.Summary)
		note := ""
		if fl.Exhausted {
			note = " (stopped at --max-attempts; more may go)"
		}
		fmt.Fprintf(w, "shrunk %d fault events to %d in %d runs%s; %s still violated:\n%s\n", fl.EventsBefore,
			fl.EventsAfter, fl.Attempts, note, fl.Property, indent(res.Failure.Shrunk.String()))
		if fl.ScheduleFile != "" {
			fmt.Fprintf(w, "wrote %s\n", fl.ScheduleFile)
		}
		fmt.Fprintf(w, "runs to first failure: %d\nreplay: %s\n", fl.Run, fl.Replay)
		return
	}
	fmt.Fprintf(w, "no property violated in %d runs; corpus %d inputs\n", out.Runs, out.Corpus)
	fmt.Fprintf(w, "reached (%d): %s\n", len(out.Reached), strings.Join(out.Reached, ", "))
	fmt.Fprintf(w, "never reached (%d): %s\n", len(out.Unreached), strings.Join(out.Unreached, ", "))
	if len(out.NotApplicable) > 0 {
		fmt.Fprintf(w, "not applicable to %s (%d): %s\n", out.Impl, len(out.NotApplicable), strings.Join(out.NotApplicable, ", "))
	}
}
