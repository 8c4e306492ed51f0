package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// "-" reads standard input wherever simrun reads a file: the same verdict
// and exit code as the file itself, and an empty input is bad input.
func TestDashReadsStandardInput(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	dir := workDir(t)
	root := repoRoot(t)
	linkRepo(t, root, dir)
	for _, tc := range []struct {
		name, line string
		want       int
		says       string
	}{
		{"check a passing history", "bin/simrun check - < cmd/simrun/testdata/check/pass.jsonl", exitOK, "P1"},
		{"check a malformed history", "bin/simrun check - < cmd/simrun/testdata/check/malformed.jsonl", exitUsage, "standard input:2: field"},
		{"check nothing", "bin/simrun check - < /dev/null", exitUsage, ""},
		{"a schedule", `echo '{"version":1,"heal_at":"20s","events":[{"at":"3s","kind":"isolate","node":"h1"}]}' | ` +
			"bin/simrun run --scenario kleppmann-gc-pause --seed 1 --schedule - --unknown=pass", exitOK, "Faults     1 isolate"},
		{"a bad schedule", `echo '{"version":1,"heal_at":"20s","events":[{"at":"3s","kind":"isolate","node":"h9"}]}' | ` +
			"bin/simrun run --scenario kleppmann-gc-pause --seed 1 --schedule -", exitUsage, "--schedule -"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := shell(t, dir, tc.line)
			assert.Equal(t, tc.want, code, out)
			assert.Contains(t, out, tc.says)
			if strings.Contains(out, "Replay ") {
				// A replay line of a run that read "-" runs as printed.
				_, replayed := shell(t, dir, lineAfter(t, out, "Replay"))
				assert.Equal(t, lineAfter(t, out, "Trace"), lineAfter(t, replayed, "Trace"), replayed)
			}
		})
	}
}
