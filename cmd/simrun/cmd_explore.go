package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/explore"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
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
	Host          string         `json:"host"` // "event" or "goroutine"
	Scenario      string         `json:"scenario"`
	Scenarios     []string       `json:"scenarios,omitempty"` // with --scenario all, the scenarios explored
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
	// TraceHash is the trace hash of the seed run with the shrunk
	// schedule, in 16 hex digits.
	TraceHash string `json:"trace_hash"`
	// Determinism is the replay's determinism: exact on the event host;
	// on the goroutine host the shrunk schedule is run again, twice in one
	// worker, and it is verified (the same trace hash each time, and the
	// shrink's) or diverged; Level says it in words.
	Determinism string `json:"determinism"`
	Level       string `json:"level"`
}

func (a *app) exploreCommand() *cobra.Command {
	var f exploreFlags
	h := &goHost{a: a}
	cmd := &cobra.Command{
		Use:   "explore [--scenario NAME] [--impl NAME|--pkg DIR] [--seed N|random] [--budget RUNS] [--out DIR] [--json]",
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
			"runs and, on the event host, finds the same failure on any machine.\n" +
			"Goroutine-host implementations (zoo modules' --impl names, a package of --pkg) run in worker\n" +
			"processes, as simrun sweep runs them: a fresh run is the worker's own nemesis draw for a seed,\n" +
			"coverage and verdicts come from each run's history, the failure shrinks in the worker, and the\n" +
			"shrunk schedule is run again to verify it by repetition. --scenario names one of the scenarios\n" +
			"that `simrun list --impl NAME` lists (required when there are several). The replay line is\n" +
			"simrun replay, which reports verified or diverged. --json prints one object (schema_version " +
			strconv.Itoa(exploreSchemaVersion) + ").\n" +
			"--scenario all explores every scenario the implementation runs at once, each with a corpus of\n" +
			"its own: the one whose nemesis draws the most fault kinds (swarm on the event host) takes every\n" +
			"other run; the others run once each, in order, then each more often the more of its runs\n" +
			"reached something new.\n" +
			"--out writes schedule.json (the shrunk schedule, when a property was violated) and the corpus\n" +
			"under corpus/, one schedule per input, named by its place in the corpus and its seed.\n\n" +
			"Exit 0 when no property was violated within the budget; 1 when one was; 2 for bad input; 3 for an\n" +
			"internal error or a harness bug.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.explore(cmd, f, h) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", "swarm", `the scenario to explore (see simrun list; a goroutine-host implementation's: simrun list --impl NAME), or "all"`)
	fl.StringVar(&f.impl, "impl", lease.Correct().Name, `the implementation: "correct", "mutant/NAME", "zoo/NAME" or a goroutine-host one (see simrun list)`)
	fl.StringVar(&f.seedArg, "seed", "1", "the explorer's seed: N, or random (drawn and printed first)")
	fl.IntVar(&f.budget, "budget", explore.DefaultBudget, "the most runs to make, shrinking not counted")
	fl.IntVar(&f.maxAttempts, "max-attempts", explore.DefaultShrinkAttempts, "the most runs to spend shrinking a failure")
	fl.StringVar(&f.out, "out", "", "write schedule.json and the corpus into this directory")
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON object (progress goes to stderr)")
	fl.StringVar(&h.zooDir, "zoo-dir", "", zooDirUsage)
	fl.StringVar(&h.pkg, "pkg", "", pkgUsage)
	_ = cmd.MarkFlagDirname("pkg") // only fails for a flag that does not exist
	_ = cmd.RegisterFlagCompletionFunc("scenario", completeScenarios)
	_ = cmd.RegisterFlagCompletionFunc("impl", completeImpls)
	return cmd
}

func (a *app) explore(cmd *cobra.Command, f exploreFlags, h *goHost) error {
	g, err := h.target(cmd)
	if err != nil {
		return err
	}
	cfg, err := a.exploreConfig(cmd, f, g == nil)
	if err != nil {
		return err
	}
	host := scenarios.HostEvent
	var gxs []*goExploreHost
	if g != nil {
		if gxs, err = h.exploreHosts(cmd, g, f); err != nil {
			return err
		}
		defer gxs[0].pool.close() // one pool serves them all
		for _, gx := range gxs {
			cfg.Hosts = append(cfg.Hosts, gx)
		}
		host = scenarios.HostGoroutine
	}
	notes := a.notes(f.json)
	scenario, impl := exploreNames(cfg)
	fmt.Fprintf(notes, "exploring %s with %s: explorer seed %d, budget %d runs\n", scenario, impl, cfg.Seed, cfg.Budget)
	cfg.Progress = func(st explore.Step) {
		if len(st.New) > 0 {
			fmt.Fprintf(notes, "  run %d (%s%s, seed %d): %d behaviours, corpus %d; new: %s\n", st.Run,
				prefixed(st.Scenario, ", "), st.Origin, st.Seed, st.Reached, st.Corpus, strings.Join(st.New, ", "))
		}
	}
	res, err := explore.Explore(cfg)
	switch {
	case errors.Is(err, explore.ErrInvalid):
		return usagef(cmd, "--scenario %s: %w", f.scenario, err)
	case err != nil:
		return classify(cmd, err)
	}
	out := exploreResult{SchemaVersion: exploreSchemaVersion, Host: host, Scenario: res.Scenario,
		Scenarios: res.Scenarios, Impl: res.Impl,
		Seed: res.Seed, Budget: cfg.Budget, Runs: res.Runs, Corpus: len(res.Corpus), Reached: res.Reached,
		Unreached: res.Unreached, NotApplicable: res.NotApplicable, Steps: res.Steps}
	if f.out != "" {
		if err := writeCorpus(f.out, res.Corpus); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
	}
	if res.Failure != nil {
		if out.Failure, err = a.exploreFailure(cmd, res, f.out, h, g, failingHost(gxs, res.Scenario)); err != nil {
			return err
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

// exploreNames are the names of what cfg explores: with several
// scenarios, "all N scenarios (a, b, ...)".
func exploreNames(cfg explore.Config) (scenario, impl string) {
	switch {
	case len(cfg.Hosts) == 1:
		return cfg.Hosts[0].Names()
	case len(cfg.Hosts) > 1:
		var names []string
		for _, h := range cfg.Hosts {
			name, i := h.Names()
			names, impl = append(names, name), i
		}
		return fmt.Sprintf("all %d scenarios (%s)", len(names), strings.Join(names, ", ")), impl
	}
	return cfg.Scenario.Name, cfg.Impl.Name
}

// failingHost is the host among gxs of the scenario that failed, or nil
// on the event host.
func failingHost(gxs []*goExploreHost, scenario string) *goExploreHost {
	for _, gx := range gxs {
		if gx.info.Name == scenario {
			return gx
		}
	}
	return nil
}

// prefixed is s followed by sep, or nothing when s is empty.
func prefixed(s, sep string) string {
	if s == "" {
		return ""
	}
	return s + sep
}

// exploreConfig reads the flags; with event, --scenario and --impl name
// the event host's.
func (a *app) exploreConfig(cmd *cobra.Command, f exploreFlags, event bool) (explore.Config, error) {
	var cfg explore.Config
	if event && f.scenario == allScenarios {
		impl, err := lookupImpl(f.impl)
		if err != nil {
			return cfg, usageErr(cmd, err)
		}
		if cfg.Hosts, err = eventExploreHosts(impl); err != nil {
			return cfg, usagef(cmd, "--scenario all: %w", err)
		}
	} else if event {
		sc, err := lookupScenario(f.scenario)
		if err != nil {
			return cfg, usageErr(cmd, err)
		}
		if sc.Goroutines != nil {
			return cfg, usagef(cmd, "--scenario %s: runs on the goroutine host: give --impl the zoo module's "+
				"implementation (or --pkg its package)", f.scenario)
		}
		impl, err := lookupImpl(f.impl)
		if err != nil {
			return cfg, usageErr(cmd, err)
		}
		cfg.Scenario, cfg.Impl = sc, impl
	}
	seed, err := a.parseSeed(cmd, "--seed", f.seedArg)
	if err != nil {
		return cfg, err
	}
	switch {
	case f.budget < 1 || f.budget > explore.MaxBudget:
		return cfg, usagef(cmd, "--budget: must lie in [1, %d], got %d", explore.MaxBudget, f.budget)
	case f.maxAttempts < 1:
		return cfg, usagef(cmd, "--max-attempts: must be at least 1, got %d", f.maxAttempts)
	}
	cfg.Seed, cfg.Budget, cfg.ShrinkAttempts = seed, f.budget, f.maxAttempts
	return cfg, nil
}

// exploreHosts resolves --scenario among the scenarios g's worker lists
// (the only one when not given; every one, primary first, for "all") and
// starts their explore hosts, which share one pool of one serving worker:
// explore runs one input at a time. The caller closes the pool.
func (h *goHost) exploreHosts(cmd *cobra.Command, g *goImpl, f exploreFlags) ([]*goExploreHost, error) {
	infos, err := h.scenarioInfos(cmd, g)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, sc := range infos {
		names = append(names, sc.Name)
	}
	picked := []int{0}
	switch {
	case f.scenario == allScenarios:
		picked = primaryFirst(scenarioKinds(infos))
	case cmd.Flags().Changed("scenario"):
		if picked[0] = slices.Index(names, f.scenario); picked[0] < 0 {
			return nil, usagef(cmd, "--scenario: %s has no scenario %q (known: %s, or %q)", g.Name, f.scenario,
				strings.Join(names, ", "), allScenarios)
		}
	case len(infos) > 1:
		return nil, usagef(cmd, "--scenario: %s has %d scenarios, name one or %q: %s", g.Name, len(infos), allScenarios,
			strings.Join(names, ", "))
	}
	bin, err := h.start(cmd, g)
	if err != nil {
		return nil, err
	}
	pool := newWorkerPool(cmd.Context(), g, bin, 1)
	var out []*goExploreHost
	for _, i := range picked {
		out = append(out, &goExploreHost{ctx: cmd.Context(), g: g, info: infos[i], pool: pool})
	}
	return out, nil
}

// scenarioKinds counts the fault kinds each scenario's nemesis draws.
func scenarioKinds(infos []gohost.ScenarioInfo) []int {
	kinds := make([]int, len(infos))
	for i, info := range infos {
		kinds[i] = len(info.FaultKinds)
	}
	return kinds
}

// eventExploreHosts are the explore hosts of every catalogue scenario impl
// runs on the event host, primary first (primaryFirst).
func eventExploreHosts(impl lease.Impl) ([]explore.Host, error) {
	cat := scenarios.CatalogFor(impl)
	kinds := make([]int, len(cat))
	for i, sc := range cat {
		if sc.Nemesis != nil {
			kinds[i] = len(sc.NemesisFor(impl).Pool())
		}
	}
	var hosts []explore.Host
	for _, i := range primaryFirst(kinds) {
		h, err := explore.EventHost(cat[i], impl)
		if err != nil {
			return nil, err
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// primaryFirst orders scenarios for a search of several: first the one
// whose nemesis draws the most fault kinds (the first of those that tie),
// the portfolio's primary, then the others in their order. kinds are the
// scenarios' counts of fault kinds; it returns their indexes.
func primaryFirst(kinds []int) []int {
	primary := 0
	for i, k := range kinds {
		if k > kinds[primary] {
			primary = i
		}
	}
	out := []int{primary}
	for i := range kinds {
		if i != primary {
			out = append(out, i)
		}
	}
	return out
}

// exploreFailure describes res's failure with the line that replays it:
// simrun run on the event host; on the goroutine host simrun replay, after
// running the shrunk schedule again to say how deterministic it is.
func (a *app) exploreFailure(cmd *cobra.Command, res explore.Result, dir string, h *goHost, g *goImpl, gx *goExploreHost) (*exploreFound, error) {
	fl := res.Failure
	hash := gohost.HashString(fl.Hash)
	replay := res.Replay
	if g != nil {
		replay = func(file string) string {
			return repro.Simrun(h.replayArgs(g, nil, res.Scenario, fl.Input.Seed, file, hash)...)
		}
	}
	found, err := foundOf(res, dir, replay)
	if err != nil {
		return nil, usagef(cmd, "--out: %w", err)
	}
	found.TraceHash = hash
	found.Determinism, found.Level = string(history.Exact), "exact (the event host)"
	if gx == nil {
		return found, nil
	}
	o, err := gx.replay(fl.Input.Seed, fl.Shrunk)
	if err != nil {
		return nil, err
	}
	found.Determinism, found.Level = o.Determinism, o.Level
	if o.Hash != hash {
		found.Determinism = gohost.DeterminismDiverged
		found.Level += fmt.Sprintf("; trace hash %s when shrunk, %s run again", hash, o.Hash)
	}
	return found, nil
}

// foundOf describes res's failure, writing the shrunk schedule under dir
// if one is given; without, the replay line pipes the schedule in. replay
// builds the line for a schedule file.
func foundOf(res explore.Result, dir string, replay func(scheduleFile string) string) (*exploreFound, error) {
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
		found.Replay = repro.Piped(string(b), replay(stdinName))
		return found, nil
	}
	found.ScheduleFile = filepath.Join(dir, reports.ScheduleFile)
	if err := writeSchedule(found.ScheduleFile, fl.Shrunk); err != nil {
		return nil, err
	}
	found.Replay = replay(found.ScheduleFile)
	return found, nil
}

// writeCorpus writes each corpus input's schedule under dir/corpus, named
// by its place in the corpus, its scenario when several were explored,
// and its seed (0007-seed-123.json, 0007-clock-drift-seed-123.json): the
// scenario, the seed and the file replay it.
func writeCorpus(dir string, corpus []explore.Input) error {
	for i, in := range corpus {
		name := fmt.Sprintf("%04d-%sseed-%d.json", i+1, prefixed(in.Scenario, "-"), in.Seed)
		if err := writeSchedule(filepath.Join(dir, corpusDir, name), in.Schedule); err != nil {
			return err
		}
	}
	return nil
}

// printExplore prints the outcome of a search as text.
func printExplore(w io.Writer, out exploreResult, res explore.Result) {
	if fl := out.Failure; fl != nil {
		where := ""
		if len(out.Scenarios) > 0 {
			where = fl.Scenario + ", "
		}
		fmt.Fprintf(w, "run %d of %d (%sseed %d) violates %s %s: %s\n", fl.Run, out.Budget, where, fl.Seed, fl.Property,
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
		fmt.Fprintf(w, "runs to first failure: %d\ntrace hash %s; determinism: %s\nreplay: %s\n", fl.Run, fl.TraceHash,
			fl.Level, fl.Replay)
		return
	}
	fmt.Fprintf(w, "no property violated in %d runs; corpus %d inputs\n", out.Runs, out.Corpus)
	fmt.Fprintf(w, "reached (%d): %s\n", len(out.Reached), strings.Join(out.Reached, ", "))
	fmt.Fprintf(w, "never reached (%d): %s\n", len(out.Unreached), strings.Join(out.Unreached, ", "))
	if len(out.NotApplicable) > 0 {
		fmt.Fprintf(w, "not applicable to %s (%d): %s\n", out.Impl, len(out.NotApplicable), strings.Join(out.NotApplicable, ", "))
	}
}
