package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/sweep"
)

// goHost puts the goroutine-host implementations of the zoo's modules
// and of a user's package behind run, replay, shrink, sweep and list: when
// --impl names one, or --pkg gives a package, the command runs it in
// worker processes instead of the event host.
type goHost struct {
	a      *app
	zooDir string                           // --zoo-dir
	pkg    string                           // --pkg
	built  map[string]string                // worker binaries built by this command, by implementation name
	infos  map[string][]gohost.ScenarioInfo // the scenarios the workers listed, by implementation name
	knobs  gohost.KnobValues                // --knob, checked
}

// noReport is what the goroutine host's results say about report files
// when none were asked for.
const noReport = "none: give --out DIR for report.html, history.jsonl and the other report files"

// addGoroutineHost hooks the goroutine host into root's commands.
func (a *app) addGoroutineHost(root *cobra.Command) {
	h := &goHost{a: a}
	for _, c := range root.Commands() {
		switch c.Name() {
		case "run", "sweep", "replay", "shrink":
			h.wrap(c)
		case "list":
			h.wrapList(c)
		}
	}
}

const zooDirUsage = "the directory of the zoo's modules, for goroutine-host implementations (default: zoo/ of the leasesim module around the working directory)"

// wrap makes c run a goroutine-host implementation when --impl names
// one, and the event host otherwise.
func (h *goHost) wrap(c *cobra.Command) {
	c.Flags().StringVar(&h.zooDir, "zoo-dir", "", zooDirUsage)
	c.Flags().StringVar(&h.pkg, "pkg", "", pkgUsage)
	_ = c.MarkFlagDirname("pkg") // only fails for a flag that does not exist
	addKnobFlag(c)
	if c.Name() == "replay" {
		c.Flags().String("schedule", "", "goroutine host: a fault schedule (JSON) that replaces the scenario's faults")
		c.Flags().String("hash", "", "goroutine host: the trace hash the replay must give (16 hex digits)")
	}
	event := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		g, err := h.target(cmd)
		if err != nil {
			return err
		}
		if g == nil && c.Name() == "replay" && len(args) == 1 {
			var fromDir bool
			if g, fromDir, err = h.replayDirTarget(cmd, args[0]); err != nil {
				return err
			}
			if fromDir {
				args = nil
			}
		}
		if g == nil {
			if c.Name() == "replay" && (cmd.Flags().Changed("schedule") || cmd.Flags().Changed("hash")) {
				return usagef(cmd, "--schedule, --hash: only for goroutine-host implementations; an event-host run "+
					"replays from its run directory (simrun run --out DIR, then simrun replay DIR)")
			}
			if err := refuseKnobs(cmd); err != nil {
				return err
			}
			return event(cmd, args)
		}
		if len(args) > 0 {
			return usagef(cmd, "%s: a goroutine-host replay takes --scenario and --seed, not a run directory",
				strings.Join(h.targetArgs(g), " "))
		}
		if h.knobs, err = h.readKnobs(cmd, g); err != nil {
			return err
		}
		switch c.Name() {
		case "run":
			return h.run(cmd, g)
		case "replay":
			return h.replay(cmd, g)
		case "shrink":
			return h.shrink(cmd, g)
		}
		return h.sweep(cmd, g)
	}
}

// target is the goroutine-host implementation the command runs: the
// package of --pkg, or the one --impl (or --rerun-failures' summary)
// names; nil when the event host runs it.
func (h *goHost) target(cmd *cobra.Command) (*goImpl, error) {
	if cmd.Flags().Changed("pkg") {
		return h.pkgTarget(cmd)
	}
	name, given := cmd.Flags().Lookup("impl").Value.String(), cmd.Flags().Changed("impl")
	if rerun := cmd.Flags().Lookup("rerun-failures"); !given && rerun != nil && rerun.Value.String() != "" {
		name, given = rerunImpl(rerun.Value.String()) // a summary's failing runs go back to its implementation's host
	}
	if !given || isEventImpl(name) {
		return nil, nil
	}
	return h.lookup(cmd, name)
}

// rerunImpl returns the implementation a sweep summary names, and whether
// it names one; a file that cannot be read is left to the event host's
// --rerun-failures, which says why.
func rerunImpl(path string) (string, bool) {
	var prev sweep.Summary
	if err := readJSONFile(path, &prev); err != nil || prev.Impl == "" {
		return "", false
	}
	return prev.Impl, true
}

// isEventImpl reports whether name is one of the event host's
// implementations.
func isEventImpl(name string) bool {
	_, err := lookupImpl(name)
	return err == nil
}

// lookup finds the goroutine-host implementation called name; the error
// lists every name --impl takes.
func (h *goHost) lookup(cmd *cobra.Command, name string) (*goImpl, error) {
	impls, err := h.impls()
	if err != nil {
		return nil, usageErr(cmd, err)
	}
	if g := findGoImpl(impls, name); g != nil {
		return g, nil
	}
	var event, goNames []string
	for _, im := range implementations() {
		event = append(event, im.Name)
	}
	for _, g := range impls {
		goNames = append(goNames, g.Name)
	}
	return nil, usagef(cmd, "--impl: unknown implementation %q (known: %s; goroutine host, %s: %s; "+
		"a package of your own: --pkg DIR)", name, strings.Join(event, ", "), h.manifestsWhere(), orNone(goNames))
}

// manifestsWhere says where the zoo's manifests are looked for.
func (h *goHost) manifestsWhere() string {
	dir, _ := zooDir(h.zooDir)
	if dir == "" {
		return "no zoo directory here: --zoo-dir DIR names one"
	}
	return "from " + filepath.Join(dir, "*", manifestFile)
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func (h *goHost) impls() ([]goImpl, error) {
	dir, err := zooDir(h.zooDir)
	if err != nil {
		return nil, err
	}
	return goImpls(dir)
}

// refuse is a usage error for the first of names that was given: what
// the goroutine host does not do yet.
func refuse(cmd *cobra.Command, why string, names ...string) error {
	for _, name := range names {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			return usagef(cmd, "--%s: not for goroutine-host implementations yet (%s)", name, why)
		}
	}
	return nil
}

// runJob builds g's worker binary, runs job (schedule read from path, if
// any) and returns its one outcome, and with history its history file.
func (h *goHost) runJob(cmd *cobra.Command, g *goImpl, job gohost.Job, path string, history bool) (*gohost.OutcomeRecord, []byte, error) {
	bin, err := h.start(cmd, g)
	if err != nil {
		return nil, nil, err
	}
	wr, err := h.workWith(cmd, g, bin, job, path, history)
	if err != nil {
		return nil, nil, err
	}
	o, err := oneOutcome(wr.records)
	if err != nil {
		return nil, nil, err
	}
	return o, wr.histories[o.Seed], nil
}

// start builds g's worker binary, saying so on stderr (a first build of a
// module with heavy dependencies takes a while). A package of --pkg that
// does not build, or lacks the worker test, is bad input naming the flag;
// a zoo module without its worker test is a bad manifest.
func (h *goHost) start(cmd *cobra.Command, g *goImpl) (string, error) {
	if bin, ok := h.built[g.Name]; ok {
		return bin, nil
	}
	fmt.Fprintf(h.a.stderr, "%s: building the worker test binary of %s (go test -c; go's build cache makes it quick after the first time)\n",
		g.Name, g.where())
	bin, err := g.build(cmd.Context())
	switch {
	case err == nil:
	case errors.Is(err, errNoWorker) && g.Pkg != "":
		return "", usagef(cmd, "--pkg %s: %w; %s", g.Pkg, err, workerHint)
	case errors.Is(err, errNoWorker):
		return "", usagef(cmd, "%s: impl %s: %w", g.Manifest, g.Name, err)
	case errors.Is(err, errBuild) && g.Pkg != "":
		return "", usagef(cmd, "--pkg %s: %w", g.Pkg, err)
	default:
		return "", internalErr(err)
	}
	if h.built == nil {
		h.built = make(map[string]string)
	}
	h.built[g.Name] = bin
	return bin, nil
}

// rel writes path relative to the working directory when it is below it.
func rel(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if r, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// work runs one job in a worker and turns the error records every job can
// give into exit errors: the scenario or schedule is bad input (naming
// the flag), a seed the worker could not run is an internal error.
func (h *goHost) work(cmd *cobra.Command, g *goImpl, bin string, job gohost.Job, schedulePath string) ([]gohost.Record, error) {
	wr, err := h.workWith(cmd, g, bin, job, schedulePath, false)
	return wr.records, err
}

// workWith is work, and with histories it returns the history file of
// each seed the worker ran too.
func (h *goHost) workWith(cmd *cobra.Command, g *goImpl, bin string, job gohost.Job, schedulePath string, histories bool) (workerRun, error) {
	wr, err := g.runWorker(cmd.Context(), bin, job, histories)
	if err != nil {
		return wr, internalErr(err)
	}
	for _, r := range wr.records {
		if r.Error == nil {
			continue
		}
		switch r.Error.Kind {
		case gohost.ErrKindUnknownScenario:
			return wr, usagef(cmd, "--scenario: %s: %s (%s)", g.Name, r.Error.Message, repro.Simrun(h.listArgs(g)...))
		case gohost.ErrKindBadSchedule:
			return wr, usagef(cmd, "--schedule %s: %s", schedulePath, r.Error.Message)
		case gohost.ErrKindNothingToShrink, gohost.ErrKindNotReproducible:
			continue // the caller's
		}
		return wr, internalErr(fmt.Errorf("%s: %s\n%s", g.Name, r.Error.Message, outputTail(wr.output)))
	}
	return wr, nil
}

// readScheduleFlag parses --schedule, if given ("-": standard input); the
// worker checks its nodes against the scenario's.
func readScheduleFlag(cmd *cobra.Command) (*faults.Schedule, string, error) {
	path := cmd.Flags().Lookup("schedule").Value.String()
	if path == "" {
		return nil, "", nil
	}
	f, closeF, err := openInput(path)
	if err != nil {
		return nil, path, usagef(cmd, "--schedule: %w", err)
	}
	defer closeF()
	s, err := faults.Parse(f)
	if err != nil {
		return nil, path, usagef(cmd, "--schedule %s: %w", path, err)
	}
	return &s, path, nil
}

// flagString is the value of the flag called name.
func flagString(cmd *cobra.Command, name string) string {
	return cmd.Flags().Lookup(name).Value.String()
}

func flagBool(cmd *cobra.Command, name string) bool { return flagString(cmd, name) == "true" }

// policyOf reads --unknown.
func policyOf(cmd *cobra.Command) unknownPolicy { return unknownPolicy(flagString(cmd, "unknown")) }

// seedJob reads --scenario and --seed into a job for one seed. Without
// --scenario, an implementation of one scenario runs that one.
func (h *goHost) seedJob(cmd *cobra.Command, g *goImpl, kind string) (gohost.Job, error) {
	seed, err := h.a.parseSeed(cmd, "--seed", flagString(cmd, "seed"))
	if err != nil {
		return gohost.Job{}, err
	}
	scenario := flagString(cmd, "scenario")
	if !cmd.Flags().Changed("scenario") {
		infos, err := h.scenarioInfos(cmd, g)
		if err != nil {
			return gohost.Job{}, err
		}
		if len(infos) > 1 {
			var names []string
			for _, sc := range infos {
				names = append(names, sc.Name)
			}
			return gohost.Job{}, usagef(cmd, "--scenario: %s has %d scenarios, name one: %s", g.Name, len(infos), strings.Join(names, ", "))
		}
		scenario = infos[0].Name
	}
	return gohost.Job{Kind: kind, Scenario: scenario, Seeds: []uint64{seed}, Verify: kind == gohost.JobRun, Knobs: h.knobs}, nil
}

// targetArgs are the arguments that name g in a printed line.
func (h *goHost) targetArgs(g *goImpl) []string {
	if g.Pkg != "" {
		return []string{"--pkg", g.Pkg}
	}
	return []string{"--impl", g.Name}
}

// listArgs are the arguments of the line that lists g's scenarios.
func (h *goHost) listArgs(g *goImpl) []string {
	args := append([]string{"list"}, h.targetArgs(g)...)
	if h.zooDir != "" {
		args = append(args, "--zoo-dir", h.zooDir)
	}
	return args
}

// replayArgs are the arguments of the replay line of one seed, run with
// knobs.
func (h *goHost) replayArgs(g *goImpl, knobs gohost.KnobValues, scenario string, seed uint64, schedule, hash string) []string {
	args := append([]string{"replay"}, h.targetArgs(g)...)
	args = append(args, "--scenario", scenario, "--seed", strconv.FormatUint(seed, 10))
	args = append(args, gohost.KnobArgs(knobs)...)
	if schedule != "" {
		args = append(args, "--schedule", schedule)
	}
	if h.zooDir != "" {
		args = append(args, "--zoo-dir", h.zooDir)
	}
	return append(args, "--hash", hash)
}

// goRun is the JSON object of run for a goroutine-host implementation:
// the run object every host prints (reports.Run, built from the run's
// history, as simrun check builds it from the file), with what the
// goroutine host found besides the properties.
type goRun struct {
	reports.Run
	Module string `json:"module"`
	// Package is the import path of --pkg's package.
	Package string `json:"package,omitempty"`
	// Level says the determinism in words (where two runs diverged).
	Level string `json:"level"`
	// Premises are what the scenario needed to have happened.
	Premises []gohost.PremiseInfo `json:"premises"`
	// Schedule is the fault plan that was applied.
	Schedule faults.Schedule `json:"schedule"`
	// Leaks, Problems and NotApplied are the host's findings, in words:
	// goroutines that outlived their node, node errors and stalls, and
	// faults it applied differently or not at all.
	Leaks      []string `json:"leaks"`
	Problems   []string `json:"problems"`
	NotApplied []string `json:"not_applied"`
	Report     string   `json:"report"`
}

// hostGoroutine names the goroutine host in JSON objects.
const hostGoroutine = "goroutine"

func (h *goHost) run(cmd *cobra.Command, g *goImpl) error {
	if err := refuse(cmd, "the goroutine host has no kernel trace to stream; --out writes its history and reports", "trace"); err != nil {
		return err
	}
	if err := refuse(cmd, "tuning runs are the event host's", "workload", "ttl", "renew", "checkpoint", "rho", "margin"); err != nil {
		return err
	}
	job, err := h.seedJob(cmd, g, gohost.JobRun)
	if err != nil {
		return err
	}
	var path string
	if job.Schedule, path, err = readScheduleFlag(cmd); err != nil {
		return err
	}
	dir := flagString(cmd, "out")
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
	}
	o, file, err := h.runJob(cmd, g, job, path, true)
	if err != nil {
		return err
	}
	run, _, data, err := judgeGoHistory(g, *o, file, dir != "")
	if err != nil {
		return err
	}
	run.Replay = repro.Simrun(h.replayArgs(g, h.knobs, o.Scenario, o.Seed, path, o.Hash)...)
	res := goRun{Run: run, Module: rel(g.Module), Package: g.ImportPath, Level: o.Level, Premises: o.Premises,
		Schedule: o.Schedule, Leaks: o.Leaks, Problems: o.Problems, NotApplied: o.NotApplied, Report: noReport}
	var paths []string
	if dir != "" {
		if paths, err = reports.WriteRunDir(dir, run, data); err != nil {
			return internalErr(err)
		}
		res.Report = filepath.Join(dir, reports.ReportFile)
	}
	asJSON := flagBool(cmd, "json")
	if asJSON {
		if err := writeJSON(h.a.stdout, res); err != nil {
			return internalErr(err)
		}
	} else {
		writeGoRunText(h.a, res)
	}
	if len(paths) > 0 {
		fmt.Fprintf(h.a.notes(asJSON), "wrote %s\n", strings.Join(paths, ", "))
	}
	return outcomeVerdict(*o, policyOf(cmd))
}

// oneOutcome is the one outcome a one-seed job must give.
func oneOutcome(recs []gohost.Record) (*gohost.OutcomeRecord, error) {
	if len(recs) != 1 || recs[0].Outcome == nil {
		return nil, internalErr(fmt.Errorf("a one-seed worker wrote %d records, want one outcome", len(recs)))
	}
	return recs[0].Outcome, nil
}

// outcomeVerdict applies the exit rule to one outcome: a violation, a
// divergence, a leak or a problem of the host fails it; an unknown fails
// it under --unknown=fail.
func outcomeVerdict(o gohost.OutcomeRecord, policy unknownPolicy) error {
	violated, unknown := failures(o)
	return verdictErr(violated, len(unknown), policy, strings.Join(unknown, "; "))
}

// failures counts what fails an outcome besides unknowns, and lists its
// unknown verdicts (exceeded assumptions left out).
func failures(o gohost.OutcomeRecord) (violated int, unknown []string) {
	for _, v := range o.Verdicts {
		switch {
		case v.Status == checker.Violated:
			violated++
		case v.Status == checker.Unknown && !v.AssumptionExceeded:
			unknown = append(unknown, fmt.Sprintf("%s %s (%s)", v.Property, v.Name, v.Summary))
		}
	}
	if o.Determinism == gohost.DeterminismDiverged {
		violated++
	}
	return violated + len(o.Leaks) + len(o.Problems), unknown
}

// writeGoRunText prints a goroutine-host run for a person, in the event
// host's layout.
func writeGoRunText(a *app, r goRun) {
	w := a.stdout
	where := "module " + r.Module
	if r.Package != "" {
		where = "package " + r.Package
	}
	fmt.Fprintf(w, "leasesim run  %s  impl %s (goroutine host, %s)  seed %d\n\nProperties\n", r.Scenario, r.Impl, where, r.Seed)
	for _, v := range r.Properties {
		fmt.Fprintf(w, "  %-20s %-9s %s\n", v.Property+" "+v.Name, statusWord(v), v.Summary)
	}
	if len(r.Premises) > 0 {
		fmt.Fprintln(w, "\nPremises")
		for _, p := range r.Premises {
			held := "held    "
			if !p.Held {
				held = "NOT HELD"
			}
			fmt.Fprintf(w, "  %s  %s: %s\n", held, p.Name, p.Detail)
		}
	}
	for _, part := range []struct {
		title string
		lines []string
	}{{"Leaks", r.Leaks}, {"Problems", r.Problems}, {"Fault models (what the goroutine host applied differently, or not at all)", r.NotApplied}} {
		if len(part.lines) > 0 {
			fmt.Fprintf(w, "\n%s\n  %s\n", part.title, strings.Join(part.lines, "\n  "))
		}
	}
	fmt.Fprintf(w, "\nFaults       %d events\n%s\n", len(r.Schedule.Events), indent(r.Schedule.String()))
	fmt.Fprintf(w, "Determinism  %s\nTrace        %s\nReport       %s\nReplay       %s\n", r.Level, r.TraceHash, r.Report, r.Replay)
}

// statusWord writes a verdict's status as the event host's text does.
func statusWord(v checker.Result) string {
	switch {
	case v.AssumptionExceeded:
		return "ASSUMPTION"
	case v.Status == checker.NotApplicable:
		return "N/A"
	}
	return strings.ToUpper(string(v.Status))
}

// goReplay is replay's JSON object for a goroutine-host implementation.
type goReplay struct {
	replayResult
	Host        string `json:"host"`
	Determinism string `json:"determinism"`
	Level       string `json:"level"`
}

func (h *goHost) replay(cmd *cobra.Command, g *goImpl) error {
	job, err := h.seedJob(cmd, g, gohost.JobRun)
	if err != nil {
		return err
	}
	var path string
	if job.Schedule, path, err = readScheduleFlag(cmd); err != nil {
		return err
	}
	want := strings.TrimSpace(flagString(cmd, "hash"))
	if _, err := strconv.ParseUint(want, 16, 64); want != "" && (err != nil || len(want) != 16) {
		return usagef(cmd, "--hash %q: want a trace hash of 16 hex digits, as run and sweep print", want)
	}
	out, _, err := h.runJob(cmd, g, job, path, false)
	if err != nil {
		return err
	}
	o := *out
	res := goReplay{replayResult: replayResult{SchemaVersion: replaySchemaVersion, Scenario: o.Scenario, Impl: g.Name,
		Seed: o.Seed, Source: "the second run", WantHash: o.Hash, GotHash: o.Hash,
		Violated: []string{}, Unknown: []string{}, AssumptionExceeded: []string{}},
		Host: hostGoroutine, Determinism: o.Determinism, Level: o.Level}
	if want != "" {
		res.Source, res.WantHash = "--hash", want
	}
	res.Identical = o.Determinism == gohost.DeterminismVerified && res.WantHash == res.GotHash
	for _, v := range o.Verdicts {
		name := v.Property + " " + v.Name
		switch {
		case v.Status == checker.Violated:
			res.Violated = append(res.Violated, name)
		case v.AssumptionExceeded:
			res.AssumptionExceeded = append(res.AssumptionExceeded, name)
		case v.Status == checker.Unknown:
			res.Unknown = append(res.Unknown, name+" ("+v.Summary+")")
		}
	}
	if probs := append(append([]string{}, o.Leaks...), o.Problems...); len(probs) > 0 {
		res.Stopped = strings.Join(probs, "; ")
	}
	if flagBool(cmd, "json") {
		if err := writeJSON(h.a.stdout, res); err != nil {
			return internalErr(err)
		}
	} else {
		h.a.writeReplayText(res.replayResult)
		fmt.Fprintf(h.a.stdout, "determinism: %s\n", o.Level)
	}
	if !res.Identical {
		return errViolated
	}
	violated, unknown := failures(o)
	return verdictErr(violated, len(unknown), policyOf(cmd), strings.Join(unknown, "; "))
}

// goShrink is shrink's JSON object for a goroutine-host implementation.
type goShrink struct {
	shrinkResult
	Host      string `json:"host"`
	TraceHash string `json:"trace_hash"`
}

func (h *goHost) shrink(cmd *cobra.Command, g *goImpl) error {
	job, err := h.seedJob(cmd, g, gohost.JobShrink)
	if err != nil {
		return err
	}
	if job.MaxAttempts, err = strconv.Atoi(flagString(cmd, "max-attempts")); err != nil || job.MaxAttempts < 1 {
		return usagef(cmd, "--max-attempts: must be at least 1, got %s", flagString(cmd, "max-attempts"))
	}
	bin, err := h.start(cmd, g)
	if err != nil {
		return err
	}
	recs, err := h.work(cmd, g, bin, job, "")
	if err != nil {
		return err
	}
	if len(recs) > 0 && recs[0].Error != nil {
		e := recs[0].Error
		if e.Kind == gohost.ErrKindNothingToShrink {
			return &exitError{code: exitUsage, err: fmt.Errorf("nothing to shrink: seed %d passes (scenario %s, impl %s)",
				job.Seeds[0], job.Scenario, g.Name)}
		}
		return internalErr(fmt.Errorf("%s: %s", g.Name, e.Message))
	}
	if len(recs) != 1 || recs[0].Shrunk == nil {
		return internalErr(fmt.Errorf("a shrink worker wrote %d records, want one result", len(recs)))
	}
	s := recs[0].Shrunk
	asJSON := flagBool(cmd, "json")
	fmt.Fprintf(h.a.notes(asJSON), "seed %d violates %s %s: %s\nshrinking its %d fault events took %d runs\n",
		s.Seed, s.Target.Property, s.Target.Name, s.Target.Summary, len(s.Original.Events), s.Attempts)
	path := filepath.Join(flagString(cmd, "out"), reports.ScheduleFile)
	if err := writeSchedule(path, s.Schedule); err != nil {
		return usagef(cmd, "--out: %w", err)
	}
	res := goShrink{shrinkResult: shrinkResult{SchemaVersion: shrinkSchemaVersion, Scenario: s.Scenario, Impl: g.Name,
		Seed: s.Seed, Property: s.Target.Property, Name: s.Target.Name, Summary: s.Target.Summary,
		EventsBefore: len(s.Original.Events), EventsAfter: len(s.Schedule.Events), Attempts: s.Attempts,
		Exhausted: s.Exhausted, ScheduleFile: path, Schedule: s.Schedule,
		Replay: repro.Simrun(h.replayArgs(g, h.knobs, s.Scenario, s.Seed, path, s.Hash)...)}, Host: hostGoroutine, TraceHash: s.Hash}
	if asJSON {
		if err := writeJSON(h.a.stdout, res); err != nil {
			return internalErr(err)
		}
		return nil
	}
	note := ""
	if s.Exhausted {
		note = " (stopped at --max-attempts; more may go)"
	}
	fmt.Fprintf(h.a.stdout, "shrunk %d fault events to %d in %d runs%s; %s still violated:\n%s\n",
		res.EventsBefore, res.EventsAfter, s.Attempts, note, s.Target.Property, indent(s.Schedule.String()))
	fmt.Fprintf(h.a.stdout, "trace hash %s\nwrote %s\nreplay: %s\n", s.Hash, path, res.Replay)
	return nil
}

// goImplEntry lists a goroutine-host implementation.
type goImplEntry struct {
	entry
	Module string `json:"module"`
}

// wrapList adds the goroutine-host implementations to list, and --impl
// and --pkg, which list one's scenarios.
func (h *goHost) wrapList(c *cobra.Command) {
	c.Flags().StringVar(&h.zooDir, "zoo-dir", "", zooDirUsage)
	c.Flags().StringVar(&h.pkg, "pkg", "", "list the scenarios of this Go package directory, in any module "+
		"(builds its test binary; its test "+defaultWorker+" calls scenarios.Worker); not with --impl")
	_ = c.MarkFlagDirname("pkg")
	impl := c.Flags().String("impl", "", "list the scenarios this implementation runs (a goroutine-host one: builds its module's test binary)")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		asJSON := flagBool(cmd, "json")
		if cmd.Flags().Changed("pkg") {
			g, err := h.pkgTarget(cmd)
			if err != nil {
				return err
			}
			return h.listScenarios(cmd, g, asJSON)
		}
		impls, err := h.impls()
		if err != nil {
			return usageErr(cmd, err)
		}
		if *impl != "" {
			if ev, err := lookupImpl(*impl); err == nil {
				return listEventScenarios(h.a.stdout, ev, asJSON)
			}
			g, err := h.lookup(cmd, *impl)
			if err != nil {
				return err
			}
			return h.listScenarios(cmd, g, asJSON)
		}
		entries := []goImplEntry{}
		for _, g := range impls {
			entries = append(entries, goImplEntry{entry: entry{g.Name, g.Doc}, Module: rel(g.Module)})
		}
		cat := newCatalogue()
		if asJSON {
			err = writeJSON(h.a.stdout, struct {
				catalogue
				GoroutineHost []goImplEntry `json:"goroutine_host_impls"`
			}{cat, entries})
		} else if err = cat.write(h.a); err == nil {
			fmt.Fprintln(h.a.stdout, "\nGoroutine-host implementations (--impl; ordinary Go in zoo modules, run in worker processes; "+
				"their scenarios: simrun list --impl NAME)")
			if len(entries) == 0 {
				fmt.Fprintf(h.a.stdout, "  none (%s); a package of your own runs with --pkg DIR\n", h.manifestsWhere())
			}
			for _, e := range entries {
				fmt.Fprintf(h.a.stdout, "  %s  %s [module %s]\n", e.Name, e.Doc, e.Module)
			}
		}
		if err != nil {
			return internalErr(err)
		}
		return nil
	}
}

// goScenarioList is list --impl's JSON object.
type goScenarioList struct {
	SchemaVersion int                   `json:"schema_version"`
	Host          string                `json:"host"`
	Impl          string                `json:"impl"`
	Module        string                `json:"module"`
	Package       string                `json:"package,omitempty"` // --pkg's import path
	Scenarios     []gohost.ScenarioInfo `json:"scenarios"`
}

func (h *goHost) listScenarios(cmd *cobra.Command, g *goImpl, asJSON bool) error {
	infos, err := h.scenarioInfos(cmd, g)
	if err != nil {
		return err
	}
	res := goScenarioList{SchemaVersion: listSchemaVersion, Host: hostGoroutine, Impl: g.Name, Module: rel(g.Module),
		Package: g.ImportPath, Scenarios: infos}
	if asJSON {
		if err := writeJSON(h.a.stdout, res); err != nil {
			return internalErr(err)
		}
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Scenarios of %s (goroutine host, %s; %s --scenario NAME)\n", g.Name, g.where(),
		strings.Join(h.targetArgs(g), " "))
	for _, sc := range infos {
		fmt.Fprintf(&b, "  %s  %s [nodes %s]\n", sc.Name, sc.Doc, strings.Join(sc.Nodes, ", "))
	}
	writeKnobs(&b, infos[0].Knobs)
	_, err = h.a.stdout.Write(b.Bytes())
	return err
}

// scenarioInfos asks g's worker for its scenarios, once a command; a
// worker that lists none is bad input.
func (h *goHost) scenarioInfos(cmd *cobra.Command, g *goImpl) ([]gohost.ScenarioInfo, error) {
	if infos, ok := h.infos[g.Name]; ok {
		return infos, nil
	}
	bin, err := h.start(cmd, g)
	if err != nil {
		return nil, err
	}
	recs, err := h.work(cmd, g, bin, gohost.Job{Kind: gohost.JobList}, "")
	if err != nil {
		return nil, err
	}
	infos := []gohost.ScenarioInfo{}
	for _, r := range recs {
		infos = append(infos, *r.Scenario)
	}
	if len(infos) == 0 {
		if g.Pkg != "" {
			return nil, usagef(cmd, "--pkg %s: its worker test %s lists no scenarios: pass it the package's scenarios, as in\n\n\t%s",
				g.Pkg, g.Worker, workerLine)
		}
		return nil, usagef(cmd, "%s: impl %s: its worker test %s lists no scenarios", g.Manifest, g.Name, g.Worker)
	}
	if h.infos == nil {
		h.infos = make(map[string][]gohost.ScenarioInfo)
	}
	h.infos[g.Name] = infos
	return infos, nil
}
