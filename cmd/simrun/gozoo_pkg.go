package main

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// A user's own package of goroutine-host scenarios runs with --pkg DIR
// and no manifest: DIR is the package's directory, in any module. It is a
// goroutine-host implementation as a zoo manifest declares one (goImpl),
// with the manifest's fields filled in by convention: the worker test is
// defaultWorker, the package is DIR, and the name is the last element of
// the package's import path. Everything after that (building the test
// binary, the worker jobs, the printed lines) is the zoo's path.

// defaultWorker is the worker test a --pkg package must have: the one
// line of glue (workerLine).
const defaultWorker = "TestLeasesimWorker"

// workerLine is the line that makes a package runnable with --pkg.
const workerLine = "func " + defaultWorker + "(t *testing.T) { scenarios.Worker(t, Scenarios()) }"

// workerHint says where workerLine goes, for the errors that need it.
const workerHint = "add this line to a _test.go file of the package (Scenarios returns its []scenarios.Scenario; " +
	"import \"github.com/leasesim/leasesim/scenarios\" and \"testing\"):\n\n\t" + workerLine

const pkgUsage = "a Go package directory, in any module, whose test " + defaultWorker + " calls scenarios.Worker: " +
	"run its goroutine-host scenarios (named after the import path's last element; --scenario may be left out " +
	"when it has one; not with --impl)"

// errPkg is the error of a --pkg that names no package simrun can run.
var errPkg = errors.New("not a Go package")

// pkgImpl returns the goroutine-host implementation of the package in
// dir (--pkg). An error says what dir lacks; the caller names the flag.
func pkgImpl(dir string) (*goImpl, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: not a directory", errPkg)
	}
	if files, err := filepath.Glob(filepath.Join(abs, "*.go")); err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%w: the directory has no .go files", errPkg)
	}
	mod, modPath, err := enclosingModule(abs)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(mod, abs)
	if err != nil {
		return nil, err
	}
	importPath := path.Join(modPath, filepath.ToSlash(rel))
	return &goImpl{manifestImpl: manifestImpl{Name: implName(importPath), Doc: "package " + importPath,
		Worker: defaultWorker, Package: filepath.ToSlash(rel)}, Module: mod, Pkg: dir, ImportPath: importPath}, nil
}

// pkgTarget is the implementation of --pkg's package. --impl and
// --zoo-dir are refused with it: the package is the implementation.
func (h *goHost) pkgTarget(cmd *cobra.Command) (*goImpl, error) {
	g, err := pkgImpl(h.pkg)
	if err != nil {
		return nil, usagef(cmd, "--pkg %s: %w", h.pkg, err)
	}
	for _, name := range []string{"impl", "zoo-dir"} {
		if cmd.Flags().Changed(name) {
			return nil, usagef(cmd, "--%s: not with --pkg, whose package is the implementation (named %s in results); drop --%s",
				name, g.Name, name)
		}
	}
	return g, nil
}

// enclosingModule finds the go.mod in dir or above it and returns its
// directory and module path.
func enclosingModule(dir string) (string, string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			if p := modulePath(data); p != "" {
				return d, p, nil
			}
			return "", "", fmt.Errorf("%s declares no module path", filepath.Join(d, "go.mod"))
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", "", err
		}
		if filepath.Dir(d) == d {
			return "", "", fmt.Errorf("%w in a module: no go.mod in %s or above it (go mod init makes one)", errPkg, dir)
		}
	}
}

// modulePath is the module path a go.mod declares, or "".
func modulePath(data []byte) string {
	for line := range strings.SplitSeq(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// majorSuffix is a module path's major version element (v2, v3, ...).
var majorSuffix = regexp.MustCompile(`^v[0-9]+$`)

// implName names a package's implementation: its import path's last
// element, or the one before a major version suffix.
func implName(importPath string) string {
	base := path.Base(importPath)
	if majorSuffix.MatchString(base) && path.Dir(importPath) != "." {
		base = path.Base(path.Dir(importPath))
	}
	return base
}
