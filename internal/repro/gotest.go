package repro

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// GoTest returns the line that re-runs one subtest of a Go test from the
// module root: `go test -run '^TestX$/^seed=7$' ./pkg`. test is the full
// name testing.T.Name() gives ("TestX/seed=7", or deeper); each level is
// anchored and its regexp metacharacters escaped, so exactly that subtest
// runs. pkg is the package directory relative to the module root ("." for
// the root itself); PackageDir finds it for the running test.
func GoTest(test, pkg string, extra ...string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	words := []string{"go", "test", "-run", strings.Join(parts, "/")}
	words = append(words, extra...)
	return Line(append(words, pkg)...)
}

// PackageDir returns the current directory (a test's package directory)
// relative to the enclosing module root, as "./path/to/pkg" or ".".
func PackageDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("repro: working directory: %w", err)
	}
	root, err := moduleRoot(wd)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, wd)
	if err != nil {
		return "", fmt.Errorf("repro: package directory: %w", err)
	}
	if rel == "." {
		return ".", nil
	}
	return "./" + filepath.ToSlash(rel), nil
}

// ModuleRoot returns the absolute path of the module root enclosing the
// current directory: where every go test line runs from.
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("repro: working directory: %w", err)
	}
	return moduleRoot(wd)
}

// moduleRoot returns the nearest directory at or above dir with a go.mod.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("repro: no go.mod above %s", dir)
		}
	}
}

// Assign returns a POSIX shell environment assignment, NAME=value with the
// value quoted where it needs quoting, to put in front of a line:
//
//	Assign("LEASESIM_SCHEDULE", "a b.json") + " " + GoTest(...) == "LEASESIM_SCHEDULE='a b.json' go test ..."
func Assign(name, value string) string {
	return name + "=" + Quote(value)
}
