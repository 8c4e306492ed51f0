package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/sweep"
)

// A goroutine-host sweep goes through package sweep like the event
// host's: the same seeds, shards, parallel workers, summary, merge,
// --rerun-failures, --out and exit rule. Only running one seed differs:
// goSweepHost runs it in a worker process of the module's test binary
// (--parallel of them at once), which runs it twice and compares the
// traces, and hands back its history file, which simrun judges as
// simrun check does.

// goSweepHost runs a goroutine-host implementation's seeds for package
// sweep (sweep.Host).
type goSweepHost struct {
	h    *goHost
	g    *goImpl
	bin  string      // the worker test binary
	pool *workerPool // serving workers of bin, one per parallel run
	// knobs are the implementation's knobs every run sets (--knob, or a
	// tuning run's configuration).
	knobs gohost.KnobValues
}

// Impl names the implementation.
func (s *goSweepHost) Impl() string { return s.g.Name }

// Run runs one seed in a worker process and judges its history file.
// The worker runs it twice in its process and compares the traces; with
// verify a second worker process runs it again, which catches what the
// first process's state hid (crypto/rand's process-global seeding, or
// what an earlier seed left in the serving worker).
func (s *goSweepHost) Run(ctx context.Context, scenario string, seed uint64, verify bool) (sweep.HostRun, error) {
	o, file, err := s.runSeed(ctx, scenario, seed, true, false)
	if err != nil {
		return sweep.HostRun{}, err
	}
	_, j, data, err := judgeGoHistory(s.g, *o, file, false)
	if err != nil {
		return sweep.HostRun{}, err
	}
	h := data.History
	hr := sweep.HostRun{Judgement: j, Spec: h.Spec, Tasks: len(h.Tasks) > 0, SimTime: h.End.Duration(), TraceHash: o.Hash,
		Replay: repro.Simrun(s.h.replayArgs(s.g, s.knobs, scenario, seed, "", o.Hash)...)}
	if o.Determinism == gohost.DeterminismDiverged {
		hr.Failed = append(hr.Failed, sweep.HostFailure{Property: sweep.PropertyDeterminism, Detail: o.Level})
	}
	for _, p := range append(slices.Clone(o.Leaks), o.Problems...) {
		hr.Failed = append(hr.Failed, sweep.HostFailure{Property: sweep.PropertyHost, Detail: p})
	}
	if verify {
		again, _, err := s.runSeed(ctx, scenario, seed, false, true)
		if err != nil {
			return sweep.HostRun{}, err
		}
		if again.Hash != o.Hash {
			hr.Failed = append(hr.Failed, sweep.HostFailure{Property: sweep.PropertyDeterminism,
				Detail: fmt.Sprintf("trace hash %s in one worker process, %s in another", o.Hash, again.Hash)})
		}
	}
	return hr, nil
}

// runSeed runs one seed in a serving worker, or with fresh in a worker
// process of its own, and returns its outcome and, with history, its
// history file. Any error is the harness's.
func (s *goSweepHost) runSeed(ctx context.Context, scenario string, seed uint64, history, fresh bool) (*gohost.OutcomeRecord, []byte, error) {
	job := gohost.Job{Kind: gohost.JobRun, Scenario: scenario, Seeds: []uint64{seed}, Verify: true, Knobs: s.knobs}
	var wr workerRun
	var err error
	if fresh {
		wr, err = s.g.runWorker(ctx, s.bin, job, history)
	} else {
		wr, err = s.pool.run(ctx, job, history)
	}
	if err != nil {
		return nil, nil, internalErr(err)
	}
	for _, r := range wr.records {
		if r.Error != nil {
			return nil, nil, internalErr(fmt.Errorf("%s: %s\n%s", s.g.Name, r.Error.Message, outputTail(wr.output)))
		}
	}
	o, err := oneOutcome(wr.records)
	if err != nil {
		return nil, nil, err
	}
	return o, wr.histories[seed], nil
}

// sweep runs a goroutine-host sweep: the flags read as the event host's
// sweep reads them, its scenarios those the worker lists.
func (h *goHost) sweep(cmd *cobra.Command, g *goImpl) error {
	f := sweepFlagsOf(cmd)
	bin, err := h.start(cmd, g)
	if err != nil {
		return err
	}
	var cfg sweep.Config
	if f.rerun != "" {
		failing, err := h.a.readRerun(cmd, f)
		if err != nil {
			return err
		}
		if len(knobFlags(cmd)) == 0 && len(failing.knobs) > 0 {
			if h.knobs, err = h.summaryKnobs(cmd, g, failing.knobs, f.rerun); err != nil {
				return err
			}
		}
		if cfg.HostScenarios, err = h.sweepScenarios(cmd, g, strings.Join(failing.Scenarios, ",")); err != nil {
			return err
		}
		h.a.rerunSeeds(&cfg, failing.Failing, f.rerun, strings.Join(append([]string{g.Name}, gohost.KnobArgs(h.knobs)...), " "))
	} else {
		if cfg.HostScenarios, err = h.sweepScenarios(cmd, g, f.scenario); err != nil {
			return err
		}
		if cfg.Seeds, err = h.a.parseSeeds(cmd, "--seeds", f.seeds); err != nil {
			return err
		}
	}
	if err := h.a.shardAndParallel(cmd, f, &cfg); err != nil {
		return err
	}
	host := &goSweepHost{h: h, g: g, bin: bin, knobs: h.knobs}
	cfg.Host, cfg.Knobs = host, h.knobs.Settings()
	parallel := shareHeap(cfg.Parallel)
	host.pool = newWorkerPool(cmd.Context(), g, bin, parallel)
	defer host.pool.close()
	return h.a.sweepWith(cmd, f, cfg, func(sum *sweep.Summary) error { return h.keepFailures(cmd, host, sum, f.out, f.json) })
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
	for name := range strings.SplitSeq(value, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(known, name) {
			return nil, usagef(cmd, "--scenario: %s has no scenario %q (known: %s, or %q)", g.Name, name, strings.Join(known, ", "), allScenarios)
		}
		out = append(out, name)
	}
	return out, nil
}

// keepFailures writes a report directory, as run --out does, for each of
// the first maxFailureDirs failing runs of sum, under dir/failures, from
// the seed run again in a worker; a run whose trace hash differs from the
// sweep's says so on stderr (its report is of the run that was written).
func (h *goHost) keepFailures(cmd *cobra.Command, host *goSweepHost, sum *sweep.Summary, dir string, asJSON bool) error {
	return keepFailureDirs(h.a, sum, dir, asJSON, func(f *sweep.Failure, path string) (bool, error) {
		o, file, err := host.runSeed(cmd.Context(), f.Scenario, f.Seed, true, false)
		if err != nil {
			return false, err
		}
		if o.Hash != f.TraceHash {
			fmt.Fprintf(h.a.stderr, "%s seed %d: trace hash %s when its report was written, %s in the sweep\n",
				f.Scenario, f.Seed, o.Hash, f.TraceHash)
		}
		if _, err := h.writeRunDir(path, host.g, *o, file, f.Replay); err != nil {
			return false, err
		}
		return true, nil
	})
}
