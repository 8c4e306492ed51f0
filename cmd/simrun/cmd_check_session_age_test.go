package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/examples/ttllock"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/scenarios"
)

// TestCheckJudgesASessionAgeLockRecorded records the goroutine host's
// session-age story (examples/ttllock: a lock that fences with the
// holder's session id), writes its history file, and checks that simrun
// check finds what the host's own checkers found: the younger session's
// write under token 2, landing after the older session took the lock back
// and wrote under 1, is a P2 violation by the order the lock changed hands,
// and the file exits 1.
func TestCheckJudgesASessionAgeLockRecorded(t *testing.T) {
	sc := ttllock.SessionAgeHandover()
	out, err := scenarios.Execute(sc, 1, scenarios.Options{T: t})
	require.NoError(t, err)
	require.Equal(t, checker.Violated, out.Verdict("P2"), "the host's own verdict")

	file := filepath.Join(t.TempDir(), "history.jsonl")
	f, err := os.Create(file)
	require.NoError(t, err)
	require.NoError(t, leasewire.WriteHistory(f, out.History, leasewire.Meta{Producer: gohost.Producer,
		Determinism: history.Verified, Scenario: sc.Name, Seed: 1}))
	require.NoError(t, f.Close())

	r := simrunCheck(t, file)
	assert.Equal(t, exitViolated, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	for _, s := range []string{"P1 exclusivity       OK", "P2 fencing           VIOLATED", "the lease had changed hands",
		"by h2 under token 2 after a write by h1 under token 1"} {
		assert.Contains(t, r.stdout, s)
	}
}
