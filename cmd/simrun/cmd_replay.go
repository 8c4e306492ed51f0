package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

type replayFlags struct {
	seedFlags
	json    bool
	unknown unknownPolicy
}

func (a *app) replayCommand() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay DIR|DIR/run.json | --scenario NAME --seed N [--impl NAME] [--json] [--unknown fail|pass]",
		Short: "re-run a seed and confirm its trace hash is identical",
		Long: "replay DIR re-runs the run that `simrun run --out DIR` recorded (run.json, schedule.json; DIR/run.json\n" +
			"works too) and compares the trace hash with the recorded one; a goroutine-host run replays as its\n" +
			"printed line does. replay --scenario NAME --seed N runs\n" +
			"the seed twice and compares the two hashes. It then judges the replayed run as simrun run does.\n" +
			"--json prints one object (schema_version " + strconv.Itoa(replaySchemaVersion) + ").\n\n" +
			"Exit 1 when the hashes differ; otherwise the exit code of the replayed run's verdicts:\n" + exitRuleHelp,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			named := cmd.Flags().Changed("scenario") || cmd.Flags().Changed("seed")
			switch {
			case len(args) == 1 && named:
				return usagef(cmd, "give a run directory or --scenario and --seed, not both")
			case len(args) == 1:
				return a.replayDir(cmd, args[0], f)
			case !named:
				return usagef(cmd, "give a run directory (from simrun run --out) or --scenario and --seed")
			}
			return a.replaySeed(cmd, f)
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&f.json, "json", false, "print the result as one JSON object")
	addUnknownFlag(cmd.Flags(), &f.unknown)
	return cmd
}

// replaySchemaVersion is the version of replay's JSON object.
const replaySchemaVersion = 1

// replayResult is what replay found: its JSON object.
type replayResult struct {
	SchemaVersion int    `json:"schema_version"`
	Scenario      string `json:"scenario"`
	Impl          string `json:"impl"`
	Seed          uint64 `json:"seed"`
	// Source is what the replay is compared with: run.json's path, or
	// "first run".
	Source       string `json:"source"`
	WantHash     string `json:"want_trace_hash"`
	GotHash      string `json:"trace_hash"`
	Identical    bool   `json:"identical"`
	ScheduleDiff string `json:"schedule_differs,omitempty"`
	// Violated, Unknown and AssumptionExceeded list the replayed run's
	// properties with those verdicts ("P2 fencing").
	Violated           []string `json:"violated"`
	Unknown            []string `json:"unknown"`
	AssumptionExceeded []string `json:"assumption_exceeded"`
	Stopped            string   `json:"stopped,omitempty"`
}

// replaySeed runs a seed twice and compares the hashes.
func (a *app) replaySeed(cmd *cobra.Command, f replayFlags) error {
	sc, impl, err := f.resolve(a, cmd)
	if err != nil {
		return err
	}
	opts := scenarios.Options{Impl: impl, Trace: sim.TraceConfig{Keep: -1}, Logger: a.logger}
	var outs [2]*scenarios.Outcome
	for i := range outs {
		if outs[i], err = scenarios.Execute(sc, f.seed, opts); err != nil {
			return classify(cmd, fmt.Errorf("scenario %s seed %d: %w", sc.Name, f.seed, err))
		}
	}
	res := newReplayResult(outs[1], "first run", outs[0].Sim.TraceHashString())
	return a.showReplay(res, f)
}

// replayDir re-runs a recorded run. A run made with --schedule is replayed
// with the recorded schedule; any other run from its scenario and seed
// alone, since drawing the nemesis's schedule is part of its trace, and
// its applied schedule must then equal the recorded one. path is the run
// directory or its run.json.
func (a *app) replayDir(cmd *cobra.Command, path string, f replayFlags) error {
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	runFile := filepath.Join(dir, reports.RunJSONFile)
	var run reports.Run
	if err := readJSONFile(runFile, &run); err != nil {
		return usageErr(cmd, err)
	}
	sc, err := lookupScenario(run.Scenario)
	if err != nil {
		return usagef(cmd, "%s: %w", runFile, err)
	}
	impl, err := lookupImpl(run.Impl)
	if err != nil {
		return usagef(cmd, "%s: %w", runFile, err)
	}
	recorded, err := readSchedule(filepath.Join(dir, reports.ScheduleFile), sc.NodesFor(impl), knownFailpoints(impl))
	if err != nil {
		return usageErr(cmd, err)
	}
	opts := scenarios.Options{Impl: impl, Trace: sim.TraceConfig{Keep: -1}, Logger: a.logger}
	fromFile := strings.Contains(run.Replay, " --schedule ")
	if fromFile {
		opts.Schedule = &recorded
	}
	out, err := scenarios.Execute(sc, run.Seed, opts)
	if err != nil {
		return classify(cmd, fmt.Errorf("%s: scenario %s seed %d: %w", dir, sc.Name, run.Seed, err))
	}
	res := newReplayResult(out, runFile, run.TraceHash)
	if !fromFile && !reflect.DeepEqual(normalize(out.Schedule), normalize(recorded)) {
		res.ScheduleDiff = fmt.Sprintf("the fault schedule differs from %s: the scenario changed since the run",
			filepath.Join(dir, reports.ScheduleFile))
	}
	return a.showReplay(res, f)
}

// newReplayResult compares out's hash with want and lists its verdicts.
func newReplayResult(out *scenarios.Outcome, source, want string) replayResult {
	res := replayResult{SchemaVersion: replaySchemaVersion, Scenario: out.Scenario, Impl: out.Impl, Seed: out.Seed,
		Source: source, WantHash: want, GotHash: out.Sim.TraceHashString(),
		Violated: []string{}, Unknown: []string{}, AssumptionExceeded: []string{}}
	res.Identical = res.WantHash == res.GotHash
	for _, c := range out.Checks {
		name := c.Property + " " + c.Name
		switch {
		case c.Status == checker.Violated:
			res.Violated = append(res.Violated, name)
		case c.AssumptionOnly():
			res.AssumptionExceeded = append(res.AssumptionExceeded, name)
		case c.Status == checker.Unknown:
			res.Unknown = append(res.Unknown, name+" ("+c.Summary+")")
		}
	}
	if out.Sim.Err != nil {
		res.Stopped = out.Sim.Err.Error()
	}
	return res
}

// showReplay prints res and returns the exit error: a differing hash
// fails; otherwise the replayed run's verdicts decide.
func (a *app) showReplay(res replayResult, f replayFlags) error {
	if f.json {
		if err := writeJSON(a.stdout, res); err != nil {
			return internalErr(err)
		}
	} else {
		a.writeReplayText(res)
	}
	if !res.Identical {
		return errViolated
	}
	violated := len(res.Violated)
	if res.Stopped != "" {
		violated++
	}
	return verdictErr(violated, len(res.Unknown), f.unknown, strings.Join(res.Unknown, "; "))
}

// writeReplayText prints res for a person.
func (a *app) writeReplayText(res replayResult) {
	what := fmt.Sprintf("%s seed %d impl %s", res.Scenario, res.Seed, res.Impl)
	if res.ScheduleDiff != "" {
		fmt.Fprintln(a.stdout, res.ScheduleDiff)
	}
	if res.Identical {
		fmt.Fprintf(a.stdout, "replay %s: trace hash %s, identical to %s\n", what, res.GotHash, res.Source)
	} else {
		fmt.Fprintf(a.stdout, "replay %s: TRACE HASH DIFFERS: %s has %s, the replay gives %s\n",
			what, res.Source, res.WantHash, res.GotHash)
	}
	verdict := "every property held"
	switch {
	case len(res.Violated) > 0:
		verdict = "violated " + strings.Join(res.Violated, ", ")
	case res.Stopped != "":
		verdict = "stopped early: " + res.Stopped
	case len(res.Unknown) > 0:
		verdict = "unknown " + strings.Join(res.Unknown, "; ")
	}
	if len(res.AssumptionExceeded) > 0 {
		verdict += "; assumption exceeded (drift beyond rho, not a bug): " + strings.Join(res.AssumptionExceeded, ", ")
	}
	fmt.Fprintf(a.stdout, "verdict: %s\n", verdict)
}

// normalize returns s as it reads back from JSON, so that a schedule and
// its file compare equal.
func normalize(s faults.Schedule) faults.Schedule {
	b, err := json.Marshal(s)
	if err != nil {
		return s
	}
	var back faults.Schedule
	if json.Unmarshal(b, &back) != nil {
		return s
	}
	return back
}
