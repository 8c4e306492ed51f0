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

// legacyFiles still hold the in-memory History built from kernel types;
// they go when the checkers read the event schema (issue 9). Every other
// file of the package must stay free of the kernel and the hosts, so that
// the schema, its reader and its writer can be used by any producer.
var legacyFiles = map[string]bool{"history.go": true}

// TestTheSchemaImportsNoKernel fails when a file of the schema imports a
// package of this module other than internal/strictjson.
func TestTheSchemaImportsNoKernel(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	checked := 0
	for _, file := range files {
		if legacyFiles[file] || strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if strings.HasPrefix(path, "github.com/leasesim/leasesim/") {
				assert.Equal(t, "github.com/leasesim/leasesim/internal/strictjson", path, "%s imports %s", file, path)
			}
		}
		checked++
	}
	assert.Greater(t, checked, 5, "the schema's files were found")
}
