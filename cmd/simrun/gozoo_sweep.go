package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/internal/repro"
)

// goSweepSchema is the version of goSweep.
const goSweepSchema = 1

// maxGoFailures bounds the failing runs a goroutine-host sweep lists; the
// summary counts the rest.
const maxGoFailures = 50

// goSweep is sweep's summary for a goroutine-host implementation. It
// depends only on the scenarios and seeds, never on --parallel or on the
// order in which workers finished.
type goSweep struct {
	SchemaVersion int      `json:"schema_version"`
	Host          string   `json:"host"`
	Impl          string   `json:"impl"`
	Module        string   `json:"module"`
	Scenarios     []string `json:"scenarios"`
	Seeds         string   `json:"seeds"`
	// Runs is the number of (scenario, seed) runs done, Failed those that
	// failed (violated, diverged, leaked or had a problem), Unknown those
	// that did not fail but had an unknown verdict.
	Runs    int `json:"runs"`
	Failed  int `json:"failed"`
	Unknown int `json:"unknown"`
	// Properties counts each property's verdicts over the runs.
	Properties []propertyCount `json:"properties"`
	// Determinism counts the runs by determinism level (every run is run
	// twice).
	Determinism map[string]int `json:"determinism"`
	// Leaks and Problems count the runs that had any.
	Leaks    int `json:"runs_with_leaks"`
	Problems int `json:"runs_with_problems"`
	// NotApplied are the faults the host did not model, in any run.
	NotApplied []string `json:"not_applied"`
	// Failures are the first maxGoFailures failing runs, in scenario and
	// seed order, each with the line that replays it.
	Failures []goFailure `json:"failures"`
	Report   string      `json:"report"`
	// Partial is set when the sweep was interrupted.
	Partial bool `json:"partial,omitempty"`
}

// propertyCount is one property's verdicts over a sweep.
type propertyCount struct {
	Property      string `json:"property"`
	Name          string `json:"name"`
	OK            int    `json:"ok"`
	Violated      int    `json:"violated"`
	Unknown       int    `json:"unknown"`
	NotApplicable int    `json:"n_a"`
	// AssumptionExceeded counts unknowns that only say a run broke an
	// assumption (never failures).
	AssumptionExceeded int `json:"assumption_exceeded"`
}

// goFailure is one failing run.
type goFailure struct {
	Scenario    string   `json:"scenario"`
	Seed        uint64   `json:"seed"`
	Violated    []string `json:"violated"`
	Why         string   `json:"why"`
	Determinism string   `json:"determinism"`
	TraceHash   string   `json:"trace_hash"`
	Replay      string   `json:"replay"`
}

// goChunk is the seeds of one scenario that one worker process runs.
type goChunk struct {
	scenario string
	seeds    []uint64
	index    int // of the chunk's first run among all runs
}

func (h *goHost) sweep(cmd *cobra.Command, g *goImpl) error {
	if err := refuse(cmd, noReport, "out"); err != nil {
		return err
	}
	if err := refuse(cmd, "run the failing seeds' replay lines instead", "rerun-failures"); err != nil {
		return err
	}
	if err := refuse(cmd, "one machine only", "shard"); err != nil {
		return err
	}
	seeds, err := h.a.parseSeeds(cmd, "--seeds", flagString(cmd, "seeds"))
	if err != nil {
		return err
	}
	parallel := 0
	if _, err := fmt.Sscan(flagString(cmd, "parallel"), &parallel); err != nil || parallel < 0 {
		return usagef(cmd, "--parallel: must not be negative, got %s", flagString(cmd, "parallel"))
	}
	if parallel == 0 {
		parallel = runtime.NumCPU()
	}
	bin, err := h.start(cmd.Context(), g)
	if err != nil {
		return err
	}
	names, err := h.sweepScenarios(cmd, g, flagString(cmd, "scenario"))
	if err != nil {
		return err
	}
	list := make([]uint64, seeds.Count())
	for k := range list {
		list[k] = seeds.At(k)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd.SetContext(ctx)
	outs, err := h.runChunks(cmd, g, bin, chunks(names, list, parallel), len(names)*len(list), parallel)
	if err != nil && ctx.Err() == nil {
		return err
	}
	sum := h.summarise(g, names, seeds.String(), outs)
	sum.Partial = ctx.Err() != nil
	if flagBool(cmd, "json") {
		if err := writeJSON(h.a.stdout, sum); err != nil {
			return internalErr(err)
		}
	} else {
		writeGoSweepText(h.a.stdout, sum)
	}
	verdict := verdictErr(sum.Failed, sum.Unknown, policyOf(cmd), plural(sum.Unknown, "run")+" with an unknown verdict")
	if verdict == nil && sum.Partial {
		return &exitError{code: exitInternal, err: fmt.Errorf("interrupted: PARTIAL summary of %d of %d runs, no failure among them",
			sum.Runs, len(names)*len(list))}
	}
	return verdict
}

// sweepScenarios resolves --scenario: "all", one name or several.
func (h *goHost) sweepScenarios(cmd *cobra.Command, g *goImpl, value string) ([]string, error) {
	infos, err := h.scenarioInfos(cmd, g)
	if err != nil {
		return nil, err
	}
	var known []string
	for _, sc := range infos {
		known = append(known, sc.Name)
	}
	if value == allScenarios {
		return known, nil
	}
	var out []string
	for _, name := range strings.Split(value, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(known, name) {
			return nil, usagef(cmd, "--scenario: %s has no scenario %q (known: %s, or %q)", g.Name, name, strings.Join(known, ", "), allScenarios)
		}
		out = append(out, name)
	}
	return out, nil
}

// chunks splits the runs into chunks small enough that parallel workers
// share them evenly (about eight chunks per worker), and at most 50 seeds
// each so that progress shows.
func chunks(names []string, seeds []uint64, parallel int) []goChunk {
	size := min(50, max(1, len(names)*len(seeds)/(parallel*8)))
	var out []goChunk
	index := 0
	for _, name := range names {
		for from := 0; from < len(seeds); from += size {
			part := seeds[from:min(from+size, len(seeds))]
			out = append(out, goChunk{scenario: name, seeds: part, index: index})
			index += len(part)
		}
	}
	return out
}

// runChunks runs the chunks on parallel worker processes and returns the
// outcomes in run order (nil where a run did not happen: interrupted).
func (h *goHost) runChunks(cmd *cobra.Command, g *goImpl, bin string, work []goChunk, total, parallel int) ([]*gohost.OutcomeRecord, error) {
	outs := make([]*gohost.OutcomeRecord, total)
	progress := newProgress(h.a.stderr, total)
	defer progress.finish()
	var mu sync.Mutex
	var firstErr error
	done, failed := 0, 0
	next := make(chan goChunk)
	var wg sync.WaitGroup
	for range min(parallel, len(work)) {
		wg.Go(func() {
			for c := range next {
				recs, err := h.work(cmd, g, bin, gohost.Job{Kind: gohost.JobRun, Scenario: c.scenario, Seeds: c.seeds, Verify: true}, "")
				mu.Lock()
				if err != nil || len(recs) != len(c.seeds) {
					if firstErr == nil && cmd.Context().Err() == nil {
						firstErr = err
						if err == nil {
							firstErr = internalErr(fmt.Errorf("a worker wrote %d records for %d seeds", len(recs), len(c.seeds)))
						}
					}
					mu.Unlock()
					continue
				}
				for i, r := range recs {
					outs[c.index+i] = r.Outcome
					done++
					why := ""
					if v, _ := failures(*r.Outcome); v > 0 {
						failed++
						why = firstWhy(*r.Outcome)
					}
					progress.step(done, total, failed, whyLine(r.Outcome, why))
				}
				mu.Unlock()
			}
		})
	}
	feed(cmd.Context(), next, work, func() bool { mu.Lock(); defer mu.Unlock(); return firstErr != nil })
	wg.Wait()
	return outs, firstErr
}

// feed sends the chunks until they run out, ctx ends or stop says so.
func feed(ctx context.Context, next chan<- goChunk, work []goChunk, stop func() bool) {
	defer close(next)
	for _, c := range work {
		if stop() {
			return
		}
		select {
		case next <- c:
		case <-ctx.Done():
			return
		}
	}
}

func whyLine(o *gohost.OutcomeRecord, why string) string {
	if why == "" {
		return ""
	}
	return fmt.Sprintf("%s seed %d: %s", o.Scenario, o.Seed, why)
}

// firstWhy says the first thing that failed the outcome.
func firstWhy(o gohost.OutcomeRecord) string {
	for _, v := range o.Verdicts {
		if v.Status == checker.Violated {
			return fmt.Sprintf("%s %s: %s", v.Property, v.Name, v.Summary)
		}
	}
	switch {
	case o.Determinism == gohost.DeterminismDiverged:
		return "determinism: " + o.Level
	case len(o.Leaks) > 0:
		return o.Leaks[0]
	case len(o.Problems) > 0:
		return o.Problems[0]
	}
	return ""
}

// summarise counts the outcomes, in run order.
func (h *goHost) summarise(g *goImpl, names []string, seeds string, outs []*gohost.OutcomeRecord) goSweep {
	sum := goSweep{SchemaVersion: goSweepSchema, Host: hostGoroutine, Impl: g.Name, Module: rel(g.Module), Scenarios: names,
		Seeds: seeds, Properties: []propertyCount{}, NotApplied: []string{}, Failures: []goFailure{}, Report: noReport,
		Determinism: map[string]int{gohost.DeterminismVerified: 0, gohost.DeterminismDiverged: 0}}
	for _, o := range outs {
		if o == nil {
			continue
		}
		sum.Runs++
		sum.Determinism[o.Determinism]++
		for _, v := range o.Verdicts {
			sum.count(v)
		}
		for _, n := range o.NotApplied {
			if !slices.Contains(sum.NotApplied, n) {
				sum.NotApplied = append(sum.NotApplied, n)
			}
		}
		if len(o.Leaks) > 0 {
			sum.Leaks++
		}
		if len(o.Problems) > 0 {
			sum.Problems++
		}
		violated, unknown := failures(*o)
		switch {
		case violated == 0 && len(unknown) > 0:
			sum.Unknown++
		case violated > 0:
			sum.Failed++
			if len(sum.Failures) < maxGoFailures {
				sum.Failures = append(sum.Failures, h.failure(g, *o))
			}
		}
	}
	return sum
}

// count adds one verdict to its property's counts.
func (s *goSweep) count(v gohost.Verdict) {
	i := slices.IndexFunc(s.Properties, func(p propertyCount) bool { return p.Property == v.Property })
	if i < 0 {
		s.Properties = append(s.Properties, propertyCount{Property: v.Property, Name: v.Name})
		i = len(s.Properties) - 1
	}
	p := &s.Properties[i]
	switch {
	case v.AssumptionExceeded:
		p.AssumptionExceeded++
	case v.Status == checker.OK:
		p.OK++
	case v.Status == checker.Violated:
		p.Violated++
	case v.Status == checker.Unknown:
		p.Unknown++
	default:
		p.NotApplicable++
	}
}

func (h *goHost) failure(g *goImpl, o gohost.OutcomeRecord) goFailure {
	f := goFailure{Scenario: o.Scenario, Seed: o.Seed, Violated: []string{}, Why: firstWhy(o), Determinism: o.Determinism,
		TraceHash: o.Hash, Replay: repro.Simrun(h.replayArgs(g, o.Scenario, o.Seed, "", o.Hash)...)}
	for _, v := range o.Verdicts {
		if v.Status == checker.Violated {
			f.Violated = append(f.Violated, v.Property)
		}
	}
	return f
}

// writeGoSweepText prints a goroutine-host sweep for a person, in the
// event host's layout.
func writeGoSweepText(w io.Writer, s goSweep) {
	partial := ""
	if s.Partial {
		partial = "  PARTIAL (interrupted)"
	}
	fmt.Fprintf(w, "leasesim sweep  %s  impl %s (goroutine host, module %s)  seeds %s%s\n", strings.Join(s.Scenarios, ","),
		s.Impl, s.Module, s.Seeds, partial)
	fmt.Fprintf(w, "%d runs: %d failing, %d unknown\n\nProperties              ok  violated  unknown  n/a  assumption exceeded\n",
		s.Runs, s.Failed, s.Unknown)
	for _, p := range s.Properties {
		fmt.Fprintf(w, "  %-20s %4d  %8d  %7d  %3d  %19d\n", p.Property+" "+p.Name, p.OK, p.Violated, p.Unknown,
			p.NotApplicable, p.AssumptionExceeded)
	}
	fmt.Fprintln(w, "  (assumption exceeded: an overlap under clock drift beyond rho, the property's assumption broken, not a bug; not a failure)")
	fmt.Fprintf(w, "\nDeterminism  %d verified, %d diverged (every run ran twice and compared its traces)\n",
		s.Determinism[gohost.DeterminismVerified], s.Determinism[gohost.DeterminismDiverged])
	if s.Leaks+s.Problems > 0 {
		fmt.Fprintf(w, "Leaks        %d runs with leaked goroutines; %d with problems of the host\n", s.Leaks, s.Problems)
	}
	if len(s.NotApplied) > 0 {
		fmt.Fprintf(w, "Fault models %s\n", strings.Join(s.NotApplied, "; "))
	}
	fmt.Fprintf(w, "Report       %s\n", s.Report)
	if len(s.Failures) == 0 {
		return
	}
	fmt.Fprintln(w, "\nFailing runs")
	for _, f := range s.Failures {
		fmt.Fprintf(w, "  %s seed %d [%s] %s\n      %s\n", f.Scenario, f.Seed, strings.Join(f.Violated, ","), f.Why, f.Replay)
	}
	if more := s.Failed - len(s.Failures); more > 0 {
		fmt.Fprintf(w, "  (%d more failing runs not listed)\n", more)
	}
}
