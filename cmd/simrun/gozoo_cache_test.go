package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPruneWorkerCacheDropsGonePackages: a cached binary whose package
// directory is gone is removed; one whose package is there, or that is
// recent and says nothing of its package, stays.
func TestPruneWorkerCacheDropsGonePackages(t *testing.T) {
	root, pkgs := t.TempDir(), t.TempDir()
	entry := func(name, source string, age time.Duration) string {
		dir := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "x.test"), []byte("bin"), 0o755))
		if source != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, cacheSourceFile), []byte(source), 0o644))
		}
		then := time.Now().Add(-age)
		require.NoError(t, os.Chtimes(dir, then, then))
		return dir
	}
	live := entry("live", pkgs, 0)
	gone := entry("gone", filepath.Join(pkgs, "deleted"), 0)
	recentLegacy := entry("recent-legacy", "", time.Hour)
	oldLegacy := entry("old-legacy", "", 8*24*time.Hour)

	pruneWorkerCache(root)
	for _, tt := range []struct {
		dir  string
		stay bool
	}{{live, true}, {gone, false}, {recentLegacy, true}, {oldLegacy, false}} {
		_, err := os.Stat(tt.dir)
		assert.Equal(t, tt.stay, err == nil, "%s: stays %v", filepath.Base(tt.dir), tt.stay)
	}
}
