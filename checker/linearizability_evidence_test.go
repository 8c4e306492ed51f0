package checker

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVisualisationIsWrittenAtomically: a reader holding an earlier
// linearizability.html keeps it whole; the new page is renamed into place.
func TestVisualisationIsWrittenAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "linearizability.html")
	require.NoError(t, os.WriteFile(path, []byte("earlier page"), 0o644))
	reader := filepath.Join(t.TempDir(), "reader")
	require.NoError(t, os.Link(path, reader))

	h := linHistoryOf(linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""), linGrant("h2", span{2, 3, 4}, 2, 0, ""))
	r := Linearizability(h, Options{OutDir: dir})
	require.Equal(t, Violated, r.Status)
	require.Equal(t, path, r.Artifact)

	page, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(page), "<html")
	old, err := os.ReadFile(reader)
	require.NoError(t, err)
	assert.Equal(t, "earlier page", string(old), "renamed into place, not written over")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left behind")
}
