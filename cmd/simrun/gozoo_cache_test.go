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

// TestRealDirResolvesLinks: a package reached through a linked directory
// is built from, and cached under, the directory its files are in.
func TestRealDirResolvesLinks(t *testing.T) {
	real := filepath.Join(t.TempDir(), "checkout")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "zoo", "k8s"), 0o755))
	link := filepath.Join(t.TempDir(), "scratch")
	require.NoError(t, os.Mkdir(link, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(real, "zoo"), filepath.Join(link, "zoo")))
	want, err := filepath.EvalSymlinks(filepath.Join(real, "zoo", "k8s")) // t.TempDir may itself be under a link
	require.NoError(t, err)

	for _, dir := range []string{filepath.Join(link, "zoo", "k8s"), filepath.Join(real, "zoo", "k8s")} {
		got, err := realDir(dir)
		require.NoError(t, err)
		assert.Equal(t, want, got, dir)
	}
	gone := filepath.Join(link, "gone")
	got, err := realDir(gone)
	require.NoError(t, err)
	assert.Equal(t, gone, got, "a directory that does not exist stays as named")
}
