package checker

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheCheckersReadOnlyTheHistory: the checkers and the specifications
// import, of this module, only the history and each other (and the
// checkers a statistics helper), never the kernel, a host or a protocol
// (issue 9: `go list -deps ./checker ./history ./model` names none); and
// the checkers write no file (no os, no path/filepath), so reports does.
// history/imports_test.go holds the history to the same.
func TestTheCheckersReadOnlyTheHistory(t *testing.T) {
	const module = "github.com/leasesim/leasesim/"
	for _, pkg := range []struct {
		dir       string
		allowed   []string // of this module
		forbidden []string // of the standard library
	}{
		{".", []string{"history", "model", "internal/dist"}, []string{"os", "path/filepath", "io/fs"}},
		{"../model", []string{"history"}, nil},
	} {
		files, err := filepath.Glob(filepath.Join(pkg.dir, "*.go"))
		require.NoError(t, err)
		checked := 0
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				require.NoError(t, err)
				if own, ok := strings.CutPrefix(path, module); ok {
					assert.Contains(t, pkg.allowed, own, "%s imports %s", file, path)
				}
				assert.NotContains(t, pkg.forbidden, path, "%s imports %s", file, path)
			}
			checked++
		}
		assert.Greater(t, checked, 5, "the files of %s were found", pkg.dir)
	}
}

// TestTheJudgingLayersKeepNoPools (issue 28): the lease library and the
// judging layers (history, model, checker), and every package of this
// module they import, keep no pool of values across calls and force no
// collection: no sync.Pool, no runtime.GC or collector policy, no import
// of a package of spares, so a reader meets no lifetime rule. What a host
// needs for speed lives inside the host.
func TestTheJudgingLayersKeepNoPools(t *testing.T) {
	seen := map[string]bool{}
	var found []string
	var visit func(dir string)
	visit = func(dir string) {
		if seen[dir] {
			return
		}
		seen[dir] = true
		uses, deps := poolUses(t, dir)
		found = append(found, uses...)
		for _, d := range deps {
			visit(filepath.Join("..", d))
		}
	}
	for _, dir := range []string{"../lease", "../history", "../model", "."} {
		visit(dir)
	}
	assert.Empty(t, found)
	assert.GreaterOrEqual(t, len(seen), 6, "the layers and their own dependencies were read: %v", seen)
}

// The check bites: a file with a pool, a forced collection, a collector
// policy and an import of spares is flagged four times. The file is
// written for the test, so that checker/ itself holds no pooled code.
func TestPoolUsesFlagsAPooledFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pooled.go"), []byte(pooledFile), 0o644))
	uses, _ := poolUses(t, dir)
	assert.Len(t, uses, 4, "%v", uses)
}

// pooledFile is what TestPoolUsesFlagsAPooledFile must flag.
const pooledFile = `package pooled

import (
	rt "runtime"
	gc "runtime/debug"
	"sync"

	"github.com/leasesim/leasesim/internal/spares"
)

var tables sync.Pool

var kept spares.Spares[[]int]

func collect() {
	rt.GC() // under another name, still flagged
	gc.SetGCPercent(400)
}
`

// poolUses returns where the Go files in dir (tests aside) keep a pool,
// force a collection, set the collector's policy or import spares, and
// the packages of this module they import (relative to the module root).
func poolUses(t *testing.T, dir string) (uses, deps []string) {
	const module = "github.com/leasesim/leasesim/"
	banned := map[string]bool{"sync.Pool": true, "runtime.GC": true, "debug.SetGCPercent": true,
		"debug.SetMemoryLimit": true, "debug.FreeOSMemory": true}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no Go files in %s", dir)
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, nil, 0)
		require.NoError(t, err)
		names := map[string]string{} // local name → last element of the path
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			base := filepath.Base(path)
			local := base
			if imp.Name != nil {
				local = imp.Name.Name
			}
			names[local] = base
			if own, ok := strings.CutPrefix(path, module); ok {
				if strings.Contains(own, "spares") || strings.Contains(own, "batchgc") {
					uses = append(uses, fset.Position(imp.Pos()).String()+": imports "+path)
				}
				deps = append(deps, own)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && banned[names[x.Name]+"."+sel.Sel.Name] {
				uses = append(uses, fset.Position(sel.Pos()).String()+": "+x.Name+"."+sel.Sel.Name)
			}
			return true
		})
	}
	return uses, deps
}
