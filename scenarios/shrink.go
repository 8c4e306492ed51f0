package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/renameio/v2"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/internal/repro"
)

// ErrNothingToShrink is returned by ShrinkSeed when the seed violates no
// property.
var ErrNothingToShrink = errors.New("scenarios: nothing to shrink: the seed violates no property")

// ErrNotReproducible is returned by ShrinkSeed when the run's own schedule,
// replayed, no longer violates the property: a determinism bug in the
// harness, not in the implementation.
var ErrNotReproducible = errors.New("scenarios: the violation does not recur when the run's own schedule is replayed")

// Shrunk is a failing seed's fault schedule cut down by ShrinkSeed.
type Shrunk struct {
	// Target is the property that the seed violated first and that the
	// smaller schedule still violates.
	Target checker.Result
	// Original is the schedule the seed ran; Schedule the smallest found.
	Original, Schedule faults.Schedule
	// Hash is the trace hash of the seed run with Schedule.
	Hash  uint64
	Stats faults.ShrinkStats
}

// ShrinkSeed runs sc with seed and opts, takes the first property the run
// violates, and removes fault events and shortens faults for as long as the
// same seed, run with the smaller schedule (opts.Schedule), still violates
// that property; faults.Shrink does the search, in at most maxAttempts
// runs (zero means faults.DefaultShrinkAttempts), told the time of the
// property's earliest violation so that it first drops the faults after it. An error from Execute is
// returned as is; a passing seed gives ErrNothingToShrink.
func ShrinkSeed(sc Scenario, seed uint64, opts Options, maxAttempts int) (*Shrunk, error) {
	out, err := Execute(sc, seed, opts)
	if err != nil {
		return nil, err
	}
	violated := out.Violated()
	if len(violated) == 0 {
		return nil, fmt.Errorf("%w (scenario %s, seed %d, impl %s)", ErrNothingToShrink, sc.Name, seed, out.Impl)
	}
	target := violated[0]
	fails := func(s faults.Schedule) bool {
		o := opts
		o.Schedule = &s
		run, err := Execute(sc, seed, o)
		return err == nil && violates(run, target.Property)
	}
	if !fails(out.Schedule) {
		return nil, fmt.Errorf("%w: %s of scenario %s seed %d", ErrNotReproducible, target.Property, sc.Name, seed)
	}
	shrinkOpts := faults.ShrinkOptions{Nodes: sc.NodesFor(opts.Impl.OrCorrect()), MaxAttempts: maxAttempts}
	if len(target.Violations) > 0 { // earliest first
		shrinkOpts.Observed = target.Violations[0].At.Duration()
	}
	small, stats := faults.Shrink(out.Schedule, fails, shrinkOpts)
	// The last failing run may have been a larger candidate: run the
	// smallest once more for its hash.
	o := opts
	o.Schedule = &small
	last, err := Execute(sc, seed, o)
	if err != nil {
		return nil, err
	}
	return &Shrunk{Target: target, Original: out.Schedule, Schedule: small, Hash: last.TraceHash(), Stats: stats}, nil
}

// violates reports whether out violated property.
func violates(out *Outcome, property string) bool {
	for _, r := range out.Checks {
		if r.Property == property && r.Status == checker.Violated {
			return true
		}
	}
	return false
}

// ShrunkDir is where a Go test writes the schedules it shrinks, under its
// package directory: testdata/leasesim-shrunk/TEST/seed=N.json. It survives
// the test (go test ignores testdata), so the printed line can replay it,
// and it can be committed as a regression.
const ShrunkDir = "testdata/leasesim-shrunk"

// shrinkFailure shrinks the schedule of t's failing seed, writes it under
// ShrunkDir and logs it with the lines that replay it.
func shrinkFailure(t *testing.T, sc Scenario, seed uint64, opts Options, cli bool) {
	t.Helper()
	s, err := ShrinkSeed(sc, seed, opts, 0)
	if err != nil {
		t.Logf("shrink: %v", err)
		return
	}
	rel := filepath.ToSlash(filepath.Join(ShrunkDir, filepath.FromSlash(t.Name())+".json"))
	pkg, err := repro.PackageDir()
	if err != nil {
		t.Logf("shrink: %v", err)
		return
	}
	if err := writeSchedule(rel, s.Schedule); err != nil {
		t.Logf("shrink: %v", err)
		return
	}
	fromRoot := strings.TrimPrefix(filepath.ToSlash(filepath.Join(pkg, rel)), "./")
	note := ""
	if s.Stats.Exhausted {
		note = " (stopped at the attempt limit; more may go)"
	}
	out := &Outcome{Scenario: sc.Name, Impl: implName(opts), Seed: seed}
	t.Errorf("shrunk %d fault events to %d in %d runs%s; %s %s still violated:\n%s\nwrote %s\n%s",
		len(s.Original.Events), len(s.Schedule.Events), s.Stats.Attempts, note, s.Target.Property, s.Target.Name,
		indent(s.Schedule.String()), fromRoot, linesFor(t, out, cli, fromRoot))
}

// implName is the name of the implementation opts runs.
func implName(opts Options) string {
	if opts.Impl.NewGrantor == nil {
		return ""
	}
	return opts.Impl.Name
}

// writeSchedule writes s as indented JSON to path, atomically, creating
// its directory.
func writeSchedule(path string, s faults.Schedule) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("shrink: %w", err)
	}
	b = append(b, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("shrink: %w", err)
	}
	if err := renameio.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("shrink: %w", err)
	}
	return nil
}

// indent indents every line of s by four spaces.
func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }
