package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/reports"
)

// A goroutine-host run's reports come the way `simrun check` draws a
// file's: the worker hands back the seed's history file, simrun reads it
// with the same strict reader, judges it with the same checkers, and draws
// report.html, run.json, trace.perfetto.json and history.jsonl (the bytes
// the worker wrote) from it. So `simrun check DIR/history.jsonl` gives the
// same verdicts and the same report but for the run's own block (the
// implementation's name, the trace hash, the replay line, the fault plan).

// judgeGoHistory reads and judges a goroutine-host seed's history file and
// returns its run object and report data, the run named by g and o. The
// verdicts must be the worker's own: a file that judges otherwise is a
// harness bug, never the implementation's.
func judgeGoHistory(g *goImpl, o gohost.OutcomeRecord, file []byte, visualize bool) (reports.Run, checker.Judgement, reports.RunData, error) {
	name := fmt.Sprintf("%s seed %d's history", o.Scenario, o.Seed)
	h, meta, err := leasewire.ReadHistory(bytes.NewReader(file), name)
	if err != nil {
		return reports.Run{}, checker.Judgement{}, reports.RunData{},
			internalErr(fmt.Errorf("%s: the worker wrote a history simrun check cannot read: %w", g.Name, err))
	}
	data := reports.RunData{History: h, Meta: meta, Schedule: &o.Schedule, Recorded: file}
	j := checker.Judge(h, checker.Options{Visualize: visualize})
	run := reports.NewRun(h, meta, j)
	run.Impl, run.Host, run.TraceHash = g.Name, hostGoroutine, o.Hash
	if err := sameVerdicts(o.Verdicts, run.Properties); err != nil {
		return run, j, data, internalErr(fmt.Errorf("%s %s seed %d: %w (a bug of leasesim's history writer or reader, not of %s)",
			g.Name, o.Scenario, o.Seed, err, g.Name))
	}
	return run, j, data, nil
}

// sameVerdicts says where the checkers' results on a history file differ
// from the worker's verdicts on the history in memory.
func sameVerdicts(worker []gohost.Verdict, file []checker.Result) error {
	var diff []string
	for i := range max(len(worker), len(file)) {
		switch {
		case i >= len(worker):
			diff = append(diff, fmt.Sprintf("the file adds %s %s", file[i].Property, file[i].Status))
		case i >= len(file):
			diff = append(diff, fmt.Sprintf("the file lacks %s", worker[i].Property))
		case worker[i].Property != file[i].Property || worker[i].Status != file[i].Status:
			diff = append(diff, fmt.Sprintf("%s %s in the worker, %s %s in the file", worker[i].Property, worker[i].Status,
				file[i].Property, file[i].Status))
		}
	}
	if len(diff) > 0 {
		return fmt.Errorf("its history file judges otherwise: %s", strings.Join(diff, "; "))
	}
	return nil
}

// writeRunDir writes a goroutine-host seed's report directory from its
// history file, with the line that replays it, and returns the paths.
func (h *goHost) writeRunDir(dir string, g *goImpl, o gohost.OutcomeRecord, file []byte, replay string) ([]string, error) {
	run, _, data, err := judgeGoHistory(g, o, file, true)
	if err != nil {
		return nil, err
	}
	run.Replay = replay
	paths, err := reports.WriteRunDir(dir, run, data)
	if err != nil {
		return nil, internalErr(err)
	}
	return paths, nil
}
