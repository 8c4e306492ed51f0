package reports_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
)

// The terminal summary of one run. TextOptionsFor(os.Stdout) would turn
// colour on for a terminal; here it is off.
func ExampleTextOptions_WriteRunText() {
	out, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	run, data := reports.EventRun(out, 5*time.Millisecond)
	var buf bytes.Buffer
	if err := (reports.TextOptions{Color: false}).WriteRunText(&buf, run, data.History); err != nil {
		fmt.Println(err)
		return
	}
	for line := range strings.Lines(buf.String()) {
		if strings.HasPrefix(line, "leasesim run") || strings.HasPrefix(line, "Replay") ||
			strings.HasPrefix(line, "Speed") {
			fmt.Print(line)
		}
	}
	// Output:
	// leasesim run  kleppmann-gc-pause  impl correct  seed 1
	// Speed      12000x acceleration (0.005 wall seconds)
	// Replay     simrun run --scenario kleppmann-gc-pause --seed 1
}

// The report files of one run: `simrun run --out DIR` writes these.
func ExampleWriteRunDir() {
	out, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	run, data := reports.EventRun(out, time.Millisecond)
	dir, err := os.MkdirTemp("", "leasesim-run")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	paths, err := reports.WriteRunDir(dir, run, data)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// run.json
	// schedule.json
	// report.html
	// trace.perfetto.json
	// history.jsonl
}

// The Perfetto export has one process per node; open the file in
// ui.perfetto.dev.
func ExampleWritePerfetto() {
	out, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	run, data := reports.EventRun(out, time.Millisecond)
	if err := reports.WritePerfetto(&buf, run, data); err != nil {
		fmt.Println(err)
		return
	}
	var trace struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &trace); err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range trace.TraceEvents {
		if e.Name == "process_name" {
			fmt.Println(e.Args["name"])
		}
	}
	// Output:
	// grantor
	// store
	// h1
	// h2
	// network
}

// The terminal summary of a sweep says which seeds failed which property,
// and how to replay them.
func ExampleTextOptions_WriteSweepText() {
	s := sweep.Summary{
		Scenarios: []string{"kleppmann-gc-pause"}, Impl: "mutant/no-fencing", SeedFirst: 1, SeedLast: 10,
		Shard: "1/1", Runs: 10, RunsExpected: 10,
		Failures: []sweep.Failure{{Scenario: "kleppmann-gc-pause", Seed: 3, Properties: []string{"P2"},
			Detail: "P2 fencing: a stale write was accepted",
			Replay: "simrun run --scenario kleppmann-gc-pause --seed 3 --impl mutant/no-fencing"}},
		ByProperty: map[string]map[string]sweep.SeedSet{"P2": {"kleppmann-gc-pause": sweep.SeedSetOf(3)}},
	}
	var buf bytes.Buffer
	if err := (reports.TextOptions{}).WriteSweepText(&buf, s); err != nil {
		fmt.Println(err)
		return
	}
	sc := bufio.NewScanner(&buf)
	for i := 0; i < 9 && sc.Scan(); i++ {
		fmt.Println(sc.Text())
	}
	// Output:
	// leasesim sweep  kleppmann-gc-pause  impl mutant/no-fencing  seeds 1-10  shard 1/1
	// 10 runs: 1 failing run
	//
	// Failures by property
	//   P2     kleppmann-gc-pause: 1 seed: 3
	//
	// Failing runs
	//   kleppmann-gc-pause seed 3 [P2] P2 fencing: a stale write was accepted
	//       simrun run --scenario kleppmann-gc-pause --seed 3 --impl mutant/no-fencing
}
