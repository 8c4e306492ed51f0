package scenarios_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/examples/ttllock"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// demoEnv turns on TestReproDemo, which fails on purpose.
const demoEnv = "LEASESIM_REPRO_DEMO"

// TestReproDemo fails on purpose, and only when LEASESIM_REPRO_DEMO=1:
// the Kleppmann story against an implementation whose store accepts stale
// tokens, once as a user's own implementation ("mine": only a go test line
// can replay it) and once as the built-in mutant (simrun can too).
// TestPrintedLinesRunAsPrinted runs it and then the lines it prints.
func TestReproDemo(t *testing.T) {
	if os.Getenv(demoEnv) != "1" {
		t.Skip("fails on purpose; TestPrintedLinesRunAsPrinted runs it with " + demoEnv + "=1")
	}
	broken, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	mine := broken
	mine.Name = "mine"
	t.Run("own", func(t *testing.T) {
		scenarios.Run(t, scenarios.KleppmannGCPause(), scenarios.Seeds(1, 12), scenarios.WithImpl(mine))
	})
	t.Run("builtin", func(t *testing.T) {
		scenarios.Run(t, scenarios.KleppmannGCPause(), scenarios.Seeds(1, 2), scenarios.WithImpl(broken))
	})
	t.Run("goroutine", func(t *testing.T) { // goroutine code: a TTL lock whose store does not fence
		scenarios.Run(t, ttllock.KleppmannUnfenced(), scenarios.Seeds(1, 2))
	})
}

// Every line a failing Go test prints runs as printed, from the module
// root, and re-runs exactly the seed that failed, the same way: the go test
// line for a user's own implementation (seed=1 among seeds 1-12, where an
// unanchored -run seed=1 would also run 10, 11 and 12), and for a built-in
// one the simrun line too, before and after shrinking.
func TestPrintedLinesRunAsPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test and simrun in subprocesses")
	}
	root, err := repro.ModuleRoot()
	require.NoError(t, err)
	shrunkDir := filepath.Join(root, "scenarios", filepath.FromSlash(scenarios.ShrunkDir))
	t.Cleanup(func() {
		_ = os.RemoveAll(filepath.Join(shrunkDir, "TestReproDemo"))
		_ = os.Remove(shrunkDir) // only if nothing else is in it
	})
	bin := t.TempDir()
	// simrun is a module of its own (docs/decisions/0041), built in its directory.
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "simrun"), ".")
	build.Dir = filepath.Join(root, "cmd", "simrun")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build in cmd/simrun: %s", out)
	env := append(cleanEnv(), demoEnv+"=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	first := run(t, root, append(env, scenarios.ShrinkEnv+"=1"), "go", "test", "-count=1", "-run", "^TestReproDemo$", "./scenarios")
	require.Len(t, failedSeeds(first, "TestReproDemo/own"), 12, first)
	require.Equal(t, []string{"1", "2"}, failedSeeds(first, "TestReproDemo/builtin"), first)
	require.Equal(t, []string{"1", "2"}, failedSeeds(first, "TestReproDemo/goroutine"), first)
	printed := replayLines(first)
	for _, line := range printed {
		if strings.Contains(line, "TestReproDemo$/^own$") || strings.Contains(line, "--impl mine") {
			assert.NotContains(t, line, "simrun", "simrun cannot run a user's own implementation")
		}
	}
	schedule := "scenarios/testdata/leasesim-shrunk/TestReproDemo/builtin/seed=2.json"
	require.FileExists(t, filepath.Join(root, schedule))
	tests := []struct {
		name, line, test string
		also             string
	}{
		{"own implementation", `go test -run '^TestReproDemo$/^own$/^seed=1$' ./scenarios`, "TestReproDemo/own", ""},
		{"goroutine code", `go test -run '^TestReproDemo$/^goroutine$/^seed=2$' ./scenarios`, "TestReproDemo/goroutine", ""},
		{"built-in, shrunk", `LEASESIM_SCHEDULE=` + schedule + ` go test -run '^TestReproDemo$/^builtin$/^seed=2$' ./scenarios`,
			"TestReproDemo/builtin", "faults: the schedule in " + schedule},
		{"simrun", `simrun run --scenario kleppmann-gc-pause --seed 2 --impl mutant/unfenced-resource`, "", "seed 2"},
		{"simrun, shrunk", `simrun run --scenario kleppmann-gc-pause --seed 2 --impl mutant/unfenced-resource --schedule ` + schedule,
			"", "seed 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, printed, tc.line)
			out := run(t, root, env, "sh", "-c", tc.line)
			assert.Regexp(t, `(?i)P2\s+fencing\s+violated`, out)
			if tc.test != "" {
				seed := lineSeedRE.FindStringSubmatch(tc.line)[1]
				assert.Equal(t, []string{seed}, failedSeeds(out, tc.test), "exactly the printed seed ran, and failed:\n%s", out)
			}
			assert.Contains(t, out, tc.also)
		})
	}
}

// A failing seed run without shrinking prints the line that shrinks it, on
// either host, and that line runs as printed: it shrinks the seed's fault
// schedule and prints the replay of the smaller one.
func TestPrintedShrinkLineRunsAsPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in subprocesses")
	}
	root, err := repro.ModuleRoot()
	require.NoError(t, err)
	t.Cleanup(func() {
		shrunkDir := filepath.Join(root, "scenarios", filepath.FromSlash(scenarios.ShrunkDir))
		_ = os.RemoveAll(filepath.Join(shrunkDir, "TestReproDemo"))
		_ = os.Remove(shrunkDir)
	})
	env := append(cleanEnv(), demoEnv+"=1")
	// One go test fails seed 1 of both subtests (the test binary is linked
	// once, not once per subtest); each prints its own shrink line.
	subs := []string{"builtin", "goroutine"}
	out := run(t, root, env, "go", "test", "-count=1", "-run", "^TestReproDemo$/^("+strings.Join(subs, "|")+")$/^seed=1$", "./scenarios")
	var printed []string
	for _, m := range shrinkRE.FindAllStringSubmatch(out, -1) {
		printed = append(printed, m[1])
	}
	require.Len(t, printed, len(subs), "one shrink line per failing subtest in:\n%s", out)
	for _, sub := range subs {
		t.Run(sub, func(t *testing.T) {
			want := scenarios.ShrinkEnv + `=1 go test -run '^TestReproDemo$/^` + sub + `$/^seed=1$' ./scenarios`
			require.Contains(t, printed, want)
			assert.Equal(t, []string{"1"}, failedSeeds(out, "TestReproDemo/"+sub), "the seed failed without shrinking:\n%s", out)
			shrunk := run(t, root, env, "sh", "-c", want)
			assert.Contains(t, shrunk, "P2 fencing still violated", shrunk)
			assert.Equal(t, []string{"1"}, failedSeeds(shrunk, "TestReproDemo/"+sub), shrunk)
		})
	}
}

// cleanEnv is the environment without the variables that steer Run.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case scenarios.SeedsEnv, scenarios.ShrinkEnv, scenarios.ScheduleEnv, demoEnv:
		default:
			env = append(env, kv)
		}
	}
	return env
}

// run runs a command in dir that must fail (the demo fails on purpose) and
// returns its output.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s %v must fail: %s", name, args, out)
	return string(out)
}

var (
	replayRE   = regexp.MustCompile(`(?m)(?:^|\s)(?:replay|or): (.+)$`)
	shrinkRE   = regexp.MustCompile(`(?m)(?:^|\s)shrink: (.+)$`)
	lineSeedRE = regexp.MustCompile(`\^seed=(\d+)\$`)
	failRE     = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)/seed=(\d+) `)
)

// replayLines returns every line printed after "replay: " or "or: ".
func replayLines(out string) []string {
	var lines []string
	for _, m := range replayRE.FindAllStringSubmatch(out, -1) {
		lines = append(lines, m[1])
	}
	return lines
}

// failedSeeds lists the seeds whose subtests of test failed.
func failedSeeds(out, test string) []string {
	var seeds []string
	for _, m := range failRE.FindAllStringSubmatch(out, -1) {
		if m[1] == test {
			seeds = append(seeds, m[2])
		}
	}
	return seeds
}
