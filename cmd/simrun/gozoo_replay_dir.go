package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/reports"
)

// replayDirTarget is replay DIR of a goroutine-host run (simrun run --out
// DIR): it reads DIR/run.json and sets the flags of the run's own replay
// line (--impl, --scenario, --seed, --hash, its --knob flags, its
// --zoo-dir unless given, and --schedule DIR/schedule.json when the run
// had a schedule), so that the
// goroutine host replays the run as that line would. ok is false for an
// event-host run, and for a run.json that cannot be read, which the event
// host's replay reports.
func (h *goHost) replayDirTarget(cmd *cobra.Command, path string) (g *goImpl, ok bool, err error) {
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	var run reports.Run
	if readJSONFile(filepath.Join(dir, reports.RunJSONFile), &run) != nil || run.Host != hostGoroutine {
		return nil, false, nil
	}
	for _, name := range []string{"impl", "scenario", "seed", "schedule", "hash", "knob"} {
		if cmd.Flags().Changed(name) {
			return nil, true, usagef(cmd, "--%s: not with a run directory, which names its own", name)
		}
	}
	words := strings.Fields(run.Replay)
	if slices.Contains(words, "--pkg") {
		return nil, true, usagef(cmd, "%s: a run of a --pkg package replays with its own line: %s", path, run.Replay)
	}
	set := [][2]string{{"impl", run.Impl}, {"scenario", run.Scenario}, {"seed", strconv.FormatUint(run.Seed, 10)},
		{"hash", run.TraceHash}}
	for i, w := range words {
		switch {
		case w == "--knob" && i+1 < len(words):
			set = append(set, [2]string{"knob", words[i+1]})
		case w == "--schedule":
			set = append(set, [2]string{"schedule", filepath.Join(dir, reports.ScheduleFile)})
		case w == "--zoo-dir" && i+1 < len(words) && !cmd.Flags().Changed("zoo-dir"):
			set = append(set, [2]string{"zoo-dir", words[i+1]})
		}
	}
	for _, kv := range set {
		if err := cmd.Flags().Set(kv[0], kv[1]); err != nil {
			return nil, true, usagef(cmd, "%s: --%s %s: %w", path, kv[0], kv[1], err)
		}
	}
	g, err = h.lookup(cmd, run.Impl)
	return g, true, err
}
