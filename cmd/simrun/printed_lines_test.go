package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// built is the simrun binary the printed-line tests run, built once.
var built struct {
	once sync.Once
	path string
	err  error
}

// workDir returns a fresh directory holding bin/simrun, built from this
// package, so that tests invoke it as `bin/simrun` from there, as the
// README does.
func workDir(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "simrun-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(dir, "simrun")
		out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput()
		if err != nil {
			built.err = errors.New(string(out))
		}
	})
	require.NoError(t, built.err, "go build")
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.Symlink(built.path, filepath.Join(dir, "bin", "simrun")))
	return dir
}

// shell runs line with sh -c in dir, as a user pastes it, and returns its
// exit code and output.
func shell(t *testing.T, dir, line string) (int, string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	require.NoError(t, err, "sh -c %s", line)
	return 0, string(out)
}

// lineAfter returns what follows label (a regular expression) at the start
// of a line of out, up to the end of the line, trimmed.
func lineAfter(t *testing.T, out, label string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*` + label + `\s*(.+)$`).FindStringSubmatch(out)
	require.Len(t, m, 2, "no %q line in:\n%s", label, out)
	return strings.TrimSpace(m[1])
}

// The reproduction lines that run, shrink and tune print run exactly as
// printed, pasted into a shell in the directory the CLI was invoked from
// as bin/simrun, and reproduce what they say: the same violation (exit 1)
// and the same trace hash.
func TestReproductionLinesRunAsPrinted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs a POSIX shell")
	}
	steady, err := os.ReadFile(steadyBatch)
	require.NoError(t, err)
	tests := []struct {
		name  string
		line  string // the command that prints a reproduction line
		label string // what precedes the line in its output
		hash  bool   // whether the first output carries the trace hash to compare
	}{
		{name: "run", line: "bin/simrun run --impl mutant/unfenced-resource --scenario kleppmann-gc-pause --seed 1",
			label: "Replay", hash: true},
		{name: "shrink", line: "bin/simrun shrink --impl mutant/unfenced-resource --scenario kleppmann-gc-pause --seed 1 --out 'shrunk dir'",
			label: "replay:"},
		{name: "tune", line: "bin/simrun tune --workload 'my workload.jsonl' --ttl 2s --checkpoint 2u --seeds 1 --impl mutant/silent-keepalive-death",
			label: "trace " + `[0-9a-f]{16}\n`, hash: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := workDir(t)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "my workload.jsonl"), steady, 0o644))
			code, out := shell(t, dir, tt.line)
			if tt.name != "shrink" {
				require.Equal(t, exitViolated, code, out)
			} else {
				require.Equal(t, exitOK, code, out)
			}
			line := lineAfter(t, out, tt.label)
			assert.True(t, strings.HasPrefix(line, "bin/simrun run "), "named as invoked: %s", line)
			again, replayed := shell(t, dir, line)
			assert.Equal(t, exitViolated, again, "%s reproduces the violation:\n%s", line, replayed)
			got := lineAfter(t, replayed, "Trace")
			assert.Regexp(t, `^[0-9a-f]{16}$`, got)
			if tt.hash {
				assert.Contains(t, out, got, "the same trace hash as the run it reproduces")
			}
			assert.Equal(t, line, lineAfter(t, replayed, "Replay"), "the replay prints itself again")
		})
	}
}

// --version names the module version and the VCS revision.
func TestVersion(t *testing.T) {
	dir := workDir(t)
	code, out := shell(t, dir, "bin/simrun --version")
	require.Equal(t, exitOK, code, out)
	assert.Regexp(t, `^simrun \S+ revision \S+.* go1\.`, out)
}
