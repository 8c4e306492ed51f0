package etcd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
)

// Producer names this host in a history's header.
const Producer = "zoo/etcd real-time host (etcd v3.7.3, clientv3/concurrency)"

// Impl names the implementation under test in a run's report.
const Impl = "etcd v3.7.3"

// OpsFile is the run directory's file of every operation the holders made
// on etcd (grant, keepalive, create, lock, get, unlock, also those whose
// reply never came), as history records in the schema; processing times
// are unknown there, so it is for reading, not for simrun check.
const OpsFile = "etcd-ops.jsonl"

// Env is where the real-etcd stories run: the binaries Build made, and the
// directory under which each run writes its run directory
// (RunDir: Dir/STORY/seed-N). The stories' scenarios run their processes
// through it (scenarios.Processes), one run at a time.
type Env struct {
	Bin Binaries
	Dir string
	// Started, if set, is told what each run holds once every process is
	// up (a test checks all of it is released when the run returns).
	Started func(Resources)

	mu   sync.Mutex
	last *Result
}

// RunDir is the run directory of story's run with seed.
func (e *Env) RunDir(story string, seed uint64) string {
	return filepath.Join(e.Dir, story, fmt.Sprintf("seed-%d", seed))
}

// processes runs one story's configuration on an Env: the story's
// scenarios.Processes.
type processes struct {
	env *Env
	cfg Config
}

var _ scenarios.Processes = (*processes)(nil)

// Nodes names the members (m0, …) and the holders.
func (p *processes) Nodes() []string {
	var out []string
	for i := range p.cfg.Members {
		out = append(out, fmt.Sprintf("m%d", i))
	}
	for _, hs := range p.cfg.Holders {
		out = append(out, hs.Name)
	}
	return out
}

// Run runs the configuration for seed under schedule into the Env's run
// directory, writes the host's own files there (etcd-ops.jsonl,
// harness.log, samples.json, beside the members' and holders' logs) and
// returns the history.
func (p *processes) Run(ctx context.Context, seed uint64, schedule faults.Schedule) (*history.History, error) {
	cfg := p.cfg
	cfg.Schedule, cfg.Seed, cfg.Bin, cfg.Dir = schedule, seed, p.env.Bin, p.env.RunDir(cfg.Story, seed)
	if cfg.Started == nil {
		cfg.Started = p.env.Started
	}
	res, err := Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := writeHostFiles(cfg.Dir, res); err != nil {
		return nil, err
	}
	p.env.mu.Lock()
	p.env.last = res
	p.env.mu.Unlock()
	return res.History, nil
}

// Execute runs story s with seed (under schedule instead of its own when
// schedule is set) through scenarios.Execute, which judges it, and writes
// its run directory RunDir(s.Name, seed) through the reports as simrun
// writes every host's (reports.ProcessRun, reports.WriteRunDir):
// report.html, run.json, schedule.json, trace.perfetto.json,
// history.jsonl (determinism statistical), and linearizability.html when
// P3 fails. Its replay line re-runs the story with the run's schedule 20
// times (statistical replay). It returns the outcome and the host's result.
func (e *Env) Execute(ctx context.Context, s Story, seed uint64, schedule *faults.Schedule) (*scenarios.Outcome, *Result, error) {
	start := time.Now()
	out, err := scenarios.Execute(s.Scenario, seed, scenarios.Options{Context: ctx, Schedule: schedule,
		Check: checker.Options{Visualize: true}})
	if err != nil {
		return nil, nil, err
	}
	e.mu.Lock()
	res := e.last
	e.last = nil
	e.mu.Unlock()
	dir := e.RunDir(s.Name, seed)
	run, data := reports.ProcessRun(out, Producer, time.Since(start))
	run.Impl = Impl
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("etcd: run directory: %w", err)
	}
	run.Replay = "cd zoo/etcd && " + repro.Line("go", "run", "./cmd/etcdstories", "-replay", abs, "-n", "20")
	if _, err := reports.WriteRunDir(dir, run, data); err != nil {
		return nil, nil, fmt.Errorf("etcd: run directory: %w", err)
	}
	return out, res, nil
}

// writeHostFiles writes what only this host has into dir: every operation
// the holders made on etcd (OpsFile), the harness's log and the lease
// readings.
func writeHostFiles(dir string, res *Result) error {
	all := *res.History
	all.SetOps(res.EtcdOps)
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{OpsFile, func(w io.Writer) error {
			return leasewire.WriteHistory(w, &all, leasewire.Meta{Producer: Producer, Determinism: history.Statistical})
		}},
		{"harness.log", func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Join(res.Log, "\n")+"\n")
			return err
		}},
		{"samples.json", func(w io.Writer) error {
			b, err := json.MarshalIndent(res.Samples, "", " ")
			if err == nil {
				_, err = w.Write(b)
			}
			return err
		}},
	}
	for _, f := range files {
		if err := reports.WriteFileAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return fmt.Errorf("etcd: %s: %w", f.name, err)
		}
	}
	return nil
}
