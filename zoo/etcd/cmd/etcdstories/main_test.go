package main

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad usage exits 2 with a message that names the flag, before anything
// is built or created: no temporary directory is left (TMPDIR stays
// empty) and nothing is printed on stdout.
func TestBadUsageExits2AndLeavesNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		names []string // what stderr must name
	}{
		{"unknown story", []string{"-story", "nope"}, []string{"-story", `"nope"`, "kleppmann-gc-pause"}},
		{"one unknown among known", []string{"-story", "stale-unlock,nope"}, []string{"-story", `"nope"`}},
		{"no runs", []string{"-n", "0"}, []string{"-n"}},
		{"no such run directory", []string{"-replay", "/nonexistent/run"}, []string{"-replay", "run.json"}},
		{"unknown flag", []string{"-stroy", "x"}, []string{"-stroy"}},
		{"stray argument", []string{"stale-unlock"}, []string{`"stale-unlock"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, &stdout, &stderr)
			assert.Equal(t, 2, code, "stderr: %s", stderr.String())
			for _, want := range tc.names {
				assert.Contains(t, stderr.String(), want)
			}
			assert.Empty(t, stdout.String())
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			assert.Empty(t, left, "left in TMPDIR")
		})
	}
}
