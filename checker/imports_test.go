package checker

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheCheckersReadOnlyTheHistory: the checkers and the specifications
// import, of this module, only the history and each other (and the
// checkers a statistics helper and the spares they keep tables in), never
// the kernel, a host or a protocol
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
		{".", []string{"history", "model", "internal/dist", "internal/spares"}, []string{"os", "path/filepath", "io/fs"}},
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
