package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// markdownLink matches a Markdown link or image and captures its target.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinksStayInTheRepository: every link of README.md,
// ARCHITECTURE.md and the documents under docs/ names a file or directory
// of the repository (nothing the README needs lives outside it), and the
// README and ARCHITECTURE.md link nowhere outside it.
func TestDocsLinksStayInTheRepository(t *testing.T) {
	root := repoRoot(t)
	files := []string{"README.md", "ARCHITECTURE.md"}
	require.NoError(t, filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, rel)
		}
		return err
	}))
	checked := 0
	for _, file := range files {
		text, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err)
		for _, problem := range brokenLinks(root, file, string(text)) {
			t.Errorf("%s: %s", file, problem)
		}
		checked++
	}
	assert.Greater(t, checked, 5, "the documents were found")
}

// brokenLinks returns what is wrong with the links of one document: a
// target that does not exist, one outside the repository, and, in the two
// top-level maps, any link to the web.
func brokenLinks(root, file, text string) []string {
	var problems []string
	topLevel := file == "README.md" || file == "ARCHITECTURE.md"
	for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			if topLevel {
				problems = append(problems, "links outside the repository: "+target)
			}
			continue
		}
		path, _, _ := strings.Cut(target, "#")
		if path == "" {
			continue // an anchor in the same file
		}
		abs := filepath.Join(root, filepath.Dir(file), path)
		if rel, err := filepath.Rel(root, abs); err != nil || strings.HasPrefix(rel, "..") {
			problems = append(problems, "links outside the repository: "+target)
			continue
		}
		if _, err := os.Stat(abs); err != nil {
			problems = append(problems, "links to a missing file: "+target)
		}
	}
	return problems
}

// The link check bites: a missing file, a path out of the repository and a
// web link in the README are each reported.
func TestBrokenLinks(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "a.md"), nil, 0o644))
	for _, tc := range []struct {
		file, text string
		want       int
	}{
		{"README.md", "[a](docs/a.md) [top](#x) [a](docs/a.md#y)", 0},
		{"README.md", "[gone](docs/b.md)", 1},
		{"README.md", "[design](../shared/DESIGN.md)", 1},
		{"README.md", "[web](https://example.com)", 1},
		{"docs/a.md", "[web](https://example.com) [up](../docs/a.md) ![img](missing.png)", 1},
	} {
		assert.Len(t, brokenLinks(root, tc.file, tc.text), tc.want, "%s: %s", tc.file, tc.text)
	}
}

// The two maps stay maps: README.md at most 300 lines, ARCHITECTURE.md at
// most 200 (what does not fit goes to docs/).
func TestMapsStayShort(t *testing.T) {
	root := repoRoot(t)
	for file, most := range map[string]int{"README.md": 300, "ARCHITECTURE.md": 200} {
		data, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err)
		assert.LessOrEqual(t, strings.Count(string(data), "\n"), most, "%s: move detail to docs/", file)
	}
}
