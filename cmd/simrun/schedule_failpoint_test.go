package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A schedule that arms a misspelled failpoint is bad input: exit 2 naming
// the file, the event, the field and the known names, not a run that ends
// unknown with a hint that blames the implementation.
func TestRunRefusesAnUnknownFailpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "schedule.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"version":1,"heal_at":"30s","events":[`+
		`{"at":"3s","kind":"failpoint","node":"h1","failpoint":"before-wirte","action":"pause","duration":"10s"}]}`), 0o644))
	r := simrun(t, "run", "--scenario", "kleppmann-gc-pause", "--seed", "1", "--schedule", path)
	assert.Equal(t, exitUsage, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	for _, s := range []string{path, "event 0 (failpoint)", `failpoint: unknown failpoint "before-wirte"`,
		"known: after-request, after-write, before-checkpoint, before-write, on-reply"} {
		assert.Contains(t, r.stderr, s)
	}
}
