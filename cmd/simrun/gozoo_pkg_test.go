package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sweep"
)

// The --pkg tests run a user's module outside the repository: the fixture
// zoo module's lock (testdata/gozoo/lockfix) as module example.com/mylock
// in a temporary directory, with no leasesim.json, pointed at this
// checkout by a replace directive.

// userModule writes a module called example.com/NAME into dir/NAME with
// files (name to content) and returns its directory. With leasesim, it
// requires leasesim as the fixture does, replaced by this checkout.
func userModule(t *testing.T, dir, name string, leasesim bool, files map[string]string) string {
	t.Helper()
	mod := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(mod, 0o755))
	gomod := "module example.com/" + name + "\n\ngo 1.26.0\n"
	if leasesim {
		root := repoRoot(t)
		fixture, err := os.ReadFile(filepath.Join(fixtureZoo, "lockfix", "go.mod"))
		require.NoError(t, err)
		gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAllString(string(fixture), "module example.com/"+name)
		gomod = regexp.MustCompile(`(?m)^replace .*$`).ReplaceAllString(gomod, "replace "+coreModule+" => "+root)
		sum, err := os.ReadFile(filepath.Join(fixtureZoo, "lockfix", "go.sum"))
		require.NoError(t, err)
		files["go.sum"] = string(sum)
	}
	files["go.mod"] = gomod
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(mod, name), []byte(content), 0o644))
	}
	return mod
}

// lockModule is userModule with the fixture's lock and worker test.
func lockModule(t *testing.T, dir string) string {
	t.Helper()
	files := map[string]string{}
	for _, f := range []string{"lock.go", "worker_test.go"} {
		data, err := os.ReadFile(filepath.Join(fixtureZoo, "lockfix", f))
		require.NoError(t, err)
		files[f] = string(data)
	}
	return userModule(t, dir, "mylock", true, files)
}

// ownCache gives the test a user cache directory of its own, so that the
// worker binaries of its temporary modules do not pile up in the real
// one; go's build cache stays where it is (a cold one takes minutes).
func ownCache(t *testing.T) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	t.Setenv("GOCACHE", strings.TrimSpace(string(out)))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

// shellJSON runs line with sh -c in dir, as shell does, and decodes its
// stdout, which must be one JSON object, into v; it returns the exit code.
func shellJSON(t *testing.T, dir, line string, v any) int {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err, "sh -c %s", line)
	}
	oneJSONObject(t, stdout.String(), v)
	return cmd.ProcessState.ExitCode()
}

// TestPkgRunsAUsersPackage: list, run, sweep and shrink take a package
// directory of a module outside the repository and name the
// implementation after its import path; the replay lines they print
// repeat --pkg as given, run as pasted into a shell from the directory the
// CLI was invoked from as bin/simrun, and reproduce the violation and its
// trace hash.
func TestPkgRunsAUsersPackage(t *testing.T) {
	ownCache(t)
	dir := workDir(t)
	lockModule(t, dir)

	var l goScenarioList
	require.Equal(t, exitOK, shellJSON(t, dir, "bin/simrun list --pkg ./mylock --json", &l))
	assert.Equal(t, "mylock", l.Impl)
	assert.Equal(t, "example.com/mylock", l.Package)
	require.Len(t, l.Scenarios, 2)
	assert.Equal(t, "broken-client", l.Scenarios[1].Name)
	code, out := shell(t, dir, "bin/simrun list --pkg ./mylock")
	require.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "Scenarios of mylock (goroutine host, package example.com/mylock; --pkg ./mylock --scenario NAME)")

	var run goRun
	require.Equal(t, exitViolated, shellJSON(t, dir, "bin/simrun run --pkg ./mylock --scenario broken-client --seed 1 --json", &run))
	assert.Equal(t, "mylock", run.Impl)
	assert.Equal(t, "example.com/mylock", run.Package)
	assert.Equal(t, "bin/simrun replay --pkg ./mylock --scenario broken-client --seed 1 --hash "+run.TraceHash, run.Replay)

	var sum sweep.Summary
	require.Equal(t, exitViolated, shellJSON(t, dir, "bin/simrun sweep --pkg ./mylock --scenario broken-client --seeds 1-2 --json", &sum))
	assert.Equal(t, "mylock", sum.Impl)
	require.Len(t, sum.Failures, 1, "seed 1 fails and 2 passes, as with the fixture's manifest")
	assert.Equal(t, run.Replay, sum.Failures[0].Replay, "the sweep prints the run's replay line")

	var s goShrink
	require.Equal(t, exitOK, shellJSON(t, dir, "bin/simrun shrink --pkg ./mylock --scenario broken-client --seed 1 "+
		"--max-attempts 12 --out 'shrunk dir' --json", &s))
	assert.Less(t, s.EventsAfter, s.EventsBefore)
	for _, tt := range []struct{ line, hash string }{{run.Replay, run.TraceHash}, {s.Replay, s.TraceHash}} {
		code, out := shell(t, dir, tt.line)
		assert.Equal(t, exitViolated, code, "%s reproduces the violation:\n%s", tt.line, out)
		assert.Contains(t, out, "trace hash "+tt.hash+", identical to --hash", tt.line)
	}
}

// TestPkgBadInputExitsTwo: a --pkg that names no runnable package is bad
// input naming the flag and saying what to do, before or after building.
func TestPkgBadInputExitsTwo(t *testing.T) {
	ownCache(t)
	dir := t.TempDir()
	good := lockModule(t, dir)
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	orphan := filepath.Join(dir, "orphan")
	require.NoError(t, os.Mkdir(orphan, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(orphan, "x.go"), []byte("package orphan\n"), 0o644))
	broken := userModule(t, dir, "broken", false, map[string]string{"x.go": "package broken\n\nfunc X() { undefinedThing() }\n"})
	noTests := userModule(t, dir, "notests", false, map[string]string{"x.go": "package notests\n"})
	otherTest := userModule(t, dir, "othertest", false, map[string]string{"x.go": "package othertest\n",
		"x_test.go": "package othertest\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) {}\n"})
	none := userModule(t, dir, "none", true, map[string]string{"x_test.go": "package none\n\nimport (\n\t\"testing\"\n\n" +
		"\t\"github.com/leasesim/leasesim/scenarios\"\n)\n\nfunc TestLeasesimWorker(t *testing.T) { scenarios.Worker(t, nil) }\n"})
	run := []string{"run", "--seed", "1", "--pkg"}
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"not a directory", append(run, filepath.Join(dir, "nope")), []string{"--pkg " + filepath.Join(dir, "nope") + ": not a Go package: not a directory"}},
		{"no Go files", append(run, empty), []string{"--pkg " + empty + ": not a Go package: the directory has no .go files"}},
		{"no go.mod", append(run, orphan), []string{"--pkg " + orphan + ": not a Go package in a module: no go.mod in " + orphan + " or above it"}},
		{"does not build", append(run, broken), []string{"--pkg " + broken + ": the test binary does not build", "undefined: undefinedThing"}},
		{"no test files", append(run, noTests), []string{"--pkg " + noTests + ": no worker test TestLeasesimWorker: the package has no test files", workerLine}},
		{"no worker test", append(run, otherTest), []string{"--pkg " + otherTest + ": no worker test TestLeasesimWorker: the package's tests do not include it", workerLine}},
		{"no scenarios", append(run, none), []string{"--pkg " + none + ": its worker test TestLeasesimWorker lists no scenarios", workerLine}},
		{"list, no scenarios", []string{"list", "--pkg", none}, []string{"--pkg " + none + ": its worker test TestLeasesimWorker lists no scenarios"}},
		{"with --impl", append(run, good, "--impl", "mylock"), []string{"--impl: not with --pkg, whose package is the implementation (named mylock in results)"}},
		{"list with --impl", []string{"list", "--pkg", good, "--impl", "fixture/lock"}, []string{"--impl: not with --pkg"}},
		{"with --zoo-dir", append(run, good, "--zoo-dir", fixtureZoo), []string{"--zoo-dir: not with --pkg"}},
		{"two scenarios, none named", append(run, good), []string{"--scenario: mylock has 2 scenarios, name one: careful-client, broken-client"}},
		{"unknown scenario", append(run, good, "--scenario", "nope"), []string{`--scenario: mylock: unknown scenario "nope"`, "list --pkg " + good}},
		{"replay of a directory", []string{"replay", "--pkg", good, dir}, []string{"--pkg " + good + ": a goroutine-host replay takes --scenario and --seed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := simrun(t, tt.args...)
			assert.Equal(t, exitUsage, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
		})
	}
}

// The implementation's name is its import path's last element, or the
// one before a major version suffix.
func TestPkgImplName(t *testing.T) {
	for path, want := range map[string]string{"example.com/mylock": "mylock", "example.com/locks/ttl": "ttl",
		"example.com/mylock/v2": "mylock", "mylock": "mylock", "v2": "v2"} {
		assert.Equal(t, want, implName(path), path)
	}
}

// TestBuildRelinksOnlyAChangedPackage: the worker binary is built again
// when the package changed, kept (byte for byte) when it did not, and a
// package whose tests are gone is not stood in for by its last binary.
func TestBuildRelinksOnlyAChangedPackage(t *testing.T) {
	ownCache(t)
	mod := lockModule(t, t.TempDir())
	g, err := pkgImpl(mod)
	require.NoError(t, err)
	ctx := t.Context()
	bin, err := g.build(ctx)
	require.NoError(t, err)
	first, err := os.ReadFile(bin)
	require.NoError(t, err)
	again, err := g.build(ctx)
	require.NoError(t, err)
	same, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, first, same, "an unchanged package keeps its binary")

	require.NoError(t, os.WriteFile(filepath.Join(mod, "extra_test.go"), []byte("package lockfix\n\nimport \"testing\"\n\nfunc TestAdded(t *testing.T) {}\n"), 0o644))
	bin, err = g.build(ctx)
	require.NoError(t, err)
	out, err := exec.Command(bin, "-test.list", "^TestAdded$").Output()
	require.NoError(t, err)
	assert.Equal(t, "TestAdded\n", string(out), "a changed package is built again")

	for _, f := range []string{"worker_test.go", "extra_test.go"} {
		require.NoError(t, os.Remove(filepath.Join(mod, f)))
	}
	_, err = g.build(ctx)
	assert.ErrorIs(t, err, errNoWorker, "a package without tests has no worker, whatever binary is cached")
}
