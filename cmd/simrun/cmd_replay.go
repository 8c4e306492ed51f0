package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

func (a *app) replayCommand() *cobra.Command {
	var f seedFlags
	cmd := &cobra.Command{
		Use:   "replay DIR | --scenario NAME --seed N [--impl NAME]",
		Short: "re-run a seed and confirm its trace hash is identical",
		Long: "replay DIR re-runs the run that `simrun run --out DIR` recorded (run.json, schedule.json) and\n" +
			"compares the trace hash with the recorded one. replay --scenario NAME --seed N runs the seed\n" +
			"twice and compares the two hashes. Exit 0 when they are identical, 1 when they differ.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			named := cmd.Flags().Changed("scenario") || cmd.Flags().Changed("seed")
			switch {
			case len(args) == 1 && named:
				return usagef(cmd, "give a run directory or --scenario and --seed, not both")
			case len(args) == 1:
				return a.replayDir(cmd, args[0])
			case !named:
				return usagef(cmd, "give a run directory (from simrun run --out) or --scenario and --seed")
			}
			return a.replaySeed(cmd, f)
		},
	}
	f.add(cmd)
	return cmd
}

// replaySeed runs a seed twice and compares the hashes.
func (a *app) replaySeed(cmd *cobra.Command, f seedFlags) error {
	sc, impl, err := f.resolve(cmd)
	if err != nil {
		return err
	}
	opts := scenarios.Options{Impl: impl, Trace: sim.TraceConfig{Keep: -1}, Logger: a.logger}
	var hashes [2]string
	for i := range hashes {
		out, err := scenarios.Execute(sc, f.seed, opts)
		if err != nil {
			return classify(cmd, fmt.Errorf("scenario %s seed %d: %w", sc.Name, f.seed, err))
		}
		hashes[i] = out.Sim.TraceHashString()
	}
	return a.compare(fmt.Sprintf("%s seed %d impl %s", sc.Name, f.seed, impl.Name), "first run", hashes[0], hashes[1])
}

// replayDir re-runs a recorded run. A run made with --schedule is replayed
// with the recorded schedule; any other run from its scenario and seed
// alone, since drawing the nemesis's schedule is part of its trace, and
// its applied schedule must then equal the recorded one.
func (a *app) replayDir(cmd *cobra.Command, dir string) error {
	var run recordedRun
	if err := readJSONFile(filepath.Join(dir, reports.RunJSONFile), &run); err != nil {
		return usageErr(cmd, err)
	}
	sc, err := lookupScenario(run.Scenario)
	if err != nil {
		return usagef(cmd, "%s: %w", filepath.Join(dir, reports.RunJSONFile), err)
	}
	impl, err := lookupImpl(run.Impl)
	if err != nil {
		return usagef(cmd, "%s: %w", filepath.Join(dir, reports.RunJSONFile), err)
	}
	recorded, err := readSchedule(filepath.Join(dir, reports.ScheduleFile), sc.Nodes())
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
	if !fromFile && !reflect.DeepEqual(normalize(out.Schedule), normalize(recorded)) {
		fmt.Fprintf(a.stdout, "the fault schedule differs from %s: the scenario changed since the run\n",
			filepath.Join(dir, reports.ScheduleFile))
	}
	return a.compare(fmt.Sprintf("%s seed %d impl %s", sc.Name, run.Seed, impl.Name),
		filepath.Join(dir, reports.RunJSONFile), run.TraceHash, out.Sim.TraceHashString())
}

// recordedRun is the part of a run object (reports.Run, in run.json) that
// replay needs.
type recordedRun struct {
	Scenario  string `json:"scenario"`
	Impl      string `json:"impl"`
	Seed      uint64 `json:"seed"`
	TraceHash string `json:"trace_hash"`
	Replay    string `json:"replay"`
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

// compare prints whether the replayed hash equals the expected one.
func (a *app) compare(what, source, want, got string) error {
	if want == got {
		fmt.Fprintf(a.stdout, "replay %s: trace hash %s, identical to %s\n", what, got, source)
		return nil
	}
	fmt.Fprintf(a.stdout, "replay %s: TRACE HASH DIFFERS: %s has %s, the replay gives %s\n", what, source, want, got)
	return errViolated
}

// readJSONFile decodes the JSON file at path into v; errors name the file
// and, for malformed JSON, the line and column.
func readJSONFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %s", path, describeJSONError(data, err))
	}
	return nil
}

// describeJSONError gives err with the line and column of its offset.
func describeJSONError(data []byte, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
		if e.Field != "" {
			err = fmt.Errorf("%s: want %s, got %s", e.Field, e.Type, e.Value)
		}
	}
	if off < 0 || off > int64(len(data)) {
		return err.Error()
	}
	line := 1 + strings.Count(string(data[:off]), "\n")
	col := int(off) - strings.LastIndexByte(string(data[:off]), '\n')
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}
