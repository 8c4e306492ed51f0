package history

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

// TestTheHistoryImportsNoKernel fails when a file of the package (the
// schema, its reader and writer, and the in-memory History the checkers
// read) imports a package of this module other than internal/strictjson
// and truetime (the one true time, a leaf): any producer can use it, and
// the checkers that read it depend on no kernel, host or protocol.
func TestTheHistoryImportsNoKernel(t *testing.T) {
	files, err := filepath.Glob("*.go")
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
			if strings.HasPrefix(path, "github.com/leasesim/leasesim/") {
				assert.Contains(t, []string{"github.com/leasesim/leasesim/internal/strictjson", "github.com/leasesim/leasesim/truetime"},
					path, "%s imports %s", file, path)
			}
		}
		checked++
	}
	assert.Greater(t, checked, 10, "the package's files were found")
}
