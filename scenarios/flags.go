package scenarios

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/internal/repro"
)

// Command-line control of Run in a test binary, like rapid's -rapid.checks:
// each flag has an environment variable that sets its default, which also
// works with `go test ./...` (where a package whose test binary does not
// import scenarios would reject the flag).
const (
	// SeedsFlag (or SeedsEnv) replaces the seeds of every Run in the test
	// binary: "N", "A-B" or a list such as "1-5,9".
	SeedsFlag = "leasesim.seeds"
	SeedsEnv  = "LEASESIM_SEEDS"
	// ShrinkFlag (or ShrinkEnv=1) shrinks every failing seed's fault
	// schedule, as the ShrinkFailures option does.
	ShrinkFlag = "leasesim.shrink"
	ShrinkEnv  = "LEASESIM_SHRINK"
	// ScheduleFlag (or ScheduleEnv) runs every seed with the fault schedule
	// in this JSON file instead of the scenario's own plan: this is how a
	// shrunk schedule is replayed. A relative path is taken from the module
	// root, where the printed go test lines run.
	ScheduleFlag = "leasesim.schedule"
	ScheduleEnv  = "LEASESIM_SCHEDULE"
)

// cmdline is what the flags and environment variables say; the zero value
// (outside test binaries) changes nothing.
var cmdline struct {
	seeds    seedList // unset: the seeds the test wrote
	shrink   bool
	schedule string
}

func init() {
	if !testing.Testing() {
		return
	}
	if v, ok := os.LookupEnv(SeedsEnv); ok {
		if err := cmdline.seeds.Set(v); err != nil {
			badEnv(SeedsEnv, v, err)
		}
	}
	if v, ok := os.LookupEnv(ShrinkEnv); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			badEnv(ShrinkEnv, v, fmt.Errorf("want 1 or 0, true or false"))
		}
		cmdline.shrink = b
	}
	cmdline.schedule = os.Getenv(ScheduleEnv)
	flag.Var(&cmdline.seeds, SeedsFlag, "scenarios: run these seeds in every scenarios.Run instead of the test's own: N, A-B or a list such as 1-5,9 (default $"+SeedsEnv+")")
	flag.BoolVar(&cmdline.shrink, ShrinkFlag, cmdline.shrink, "scenarios: shrink the fault schedule of every failing seed and print the line that replays it (default $"+ShrinkEnv+")")
	flag.StringVar(&cmdline.schedule, ScheduleFlag, cmdline.schedule, "scenarios: run every seed with the fault schedule in this JSON file, relative to the module root (default $"+ScheduleEnv+")")
}

// badEnv stops a test binary whose environment variable is unusable, with
// exit code 2 and a message naming it, as a bad flag would.
func badEnv(name, value string, err error) {
	fmt.Fprintf(os.Stderr, "scenarios: %s=%q: %v\n", name, value, err)
	os.Exit(2)
}

// commandLineSchedule reads the schedule named by -leasesim.schedule or
// LEASESIM_SCHEDULE, validated against sc's nodes, and its path as given;
// nil when none is named.
func commandLineSchedule(sc Scenario) (*faults.Schedule, string, error) {
	name := cmdline.schedule
	if name == "" {
		return nil, "", nil
	}
	path := name
	if !filepath.IsAbs(path) {
		root, err := repro.ModuleRoot()
		if err != nil {
			return nil, name, fmt.Errorf("%s %s: %w", ScheduleEnv, name, err)
		}
		path = filepath.Join(root, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, name, fmt.Errorf("%s: %w", ScheduleEnv, err)
	}
	defer f.Close()
	s, err := faults.Parse(f)
	if err != nil {
		return nil, name, fmt.Errorf("%s %s: %w", ScheduleEnv, name, err)
	}
	if err := s.Validate(sc.Nodes()); err != nil {
		return nil, name, fmt.Errorf("%s %s: scenario %s: %w", ScheduleEnv, name, sc.Name, err)
	}
	return &s, name, nil
}
