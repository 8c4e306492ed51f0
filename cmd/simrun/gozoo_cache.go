package main

import (
	"os"
	"path/filepath"
	"time"
)

// simrun keeps each package's worker binary in the user's cache, in a
// directory named by a hash of the package's path, so that go test -c
// finds it up to date next time. A package in a temporary directory (a
// test's, a scratch module) would leave its binary there for good, so
// every build prunes the binaries whose package directory is gone.

// cacheSourceFile names, inside a cached binary's directory, the file
// that holds its package directory.
const cacheSourceFile = "source"

// legacyCacheAge is how long a cached binary without a cacheSourceFile
// (written before simrun kept one) stays.
const legacyCacheAge = 7 * 24 * time.Hour

// pruneWorkerCache removes the cached binaries under root whose package
// directory no longer exists. It is best effort: what cannot be read or
// removed stays.
func pruneWorkerCache(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if stale(dir) {
			os.RemoveAll(dir)
		}
	}
}

// stale reports whether the cached binary in dir belongs to a package
// directory that is gone.
func stale(dir string) bool {
	src, err := os.ReadFile(filepath.Join(dir, cacheSourceFile))
	if err != nil {
		info, err := os.Stat(dir)
		return err == nil && time.Since(info.ModTime()) > legacyCacheAge
	}
	_, err = os.Stat(string(src))
	return os.IsNotExist(err)
}

// realDir is dir made absolute with its symbolic links resolved: the
// directory a package's files really are in. A worker is built there, so
// that a package reached through a link (a checkout's zoo/ linked into a
// scratch directory) is the same package to go's build cache, which keys
// a compiled package on its directory, and to simrun's, and a module's
// replace of ../.. names the real checkout too: nothing is compiled or
// linked again because another path led to it.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}
