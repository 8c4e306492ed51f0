package k8s_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeExample: README.md's example is example_test.go from its
// imports on (the README adds only its package clause and the go:debug
// line), so the example a user copies compiles and passes.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	example, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	const open, closing = "```go\n", "```\n"
	_, block, ok := strings.Cut(string(readme), open)
	require.True(t, ok, "README.md has no Go block")
	block, _, ok = strings.Cut(block, closing)
	require.True(t, ok, "README.md's Go block does not end")
	fromImports := func(s string) string {
		i := strings.Index(s, "import (")
		require.GreaterOrEqual(t, i, 0, "no import block in:\n%s", s)
		return s[i:]
	}
	assert.Equal(t, fromImports(string(example)), fromImports(block))
	assert.Contains(t, block, "//go:debug randseednop=0", "the README's example must let rand.Seed work")
}
