package coredeps

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/repro"
)

// alwaysZoo are modules only a zoo system needs though no zoo go.mod
// requires them directly: etcd's raft brings gogo/protobuf.
var alwaysZoo = []string{"go.etcd.io/raft/v3", "github.com/gogo/protobuf"}

// shared are modules a zoo module requires directly that the core may
// require too: the test library every module's tests use.
var shared = []string{"github.com/stretchr/testify"}

// TestCoreGraphHasNoZooDependency runs `go mod graph` in the core module
// and fails on any module a zoo module requires directly (besides the core
// and the shared test library) and on the modules of alwaysZoo.
func TestCoreGraphHasNoZooDependency(t *testing.T) {
	root, err := repro.ModuleRoot()
	require.NoError(t, err)
	forbidden := zooRequires(t, root)
	require.True(t, forbidden["go.etcd.io/raft/v3"], "zoo/etcdraft's go.mod was read")
	graph := exec.Command("go", "mod", "graph")
	graph.Dir = root
	out, err := graph.Output()
	require.NoError(t, err, "go mod graph")
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		for _, node := range strings.Fields(line) {
			path, _, _ := strings.Cut(node, "@")
			assert.False(t, forbidden[path], "the core's go mod graph names %s, a zoo module's dependency: %s", path, line)
		}
	}
}

// zooRequires returns the set of modules the core must not depend on: alwaysZoo
// and every direct requirement of a zoo/*/go.mod other than the core and
// shared.
func zooRequires(t *testing.T, root string) map[string]bool {
	t.Helper()
	mods, err := filepath.Glob(filepath.Join(root, "zoo", "*", "go.mod"))
	require.NoError(t, err)
	require.NotEmpty(t, mods, "zoo modules under %s", root)
	forbidden := make(map[string]bool) // looked up, never iterated
	for _, path := range alwaysZoo {
		forbidden[path] = true
	}
	for _, mod := range mods {
		edit := exec.Command("go", "mod", "edit", "-json", mod)
		out, err := edit.Output()
		require.NoError(t, err, "go mod edit -json %s", mod)
		var gomod struct {
			Require []struct {
				Path     string
				Indirect bool
			}
		}
		require.NoError(t, json.Unmarshal(out, &gomod), mod)
		for _, r := range gomod.Require {
			if !r.Indirect && !strings.HasPrefix(r.Path, "github.com/leasesim/leasesim") && !slices.Contains(shared, r.Path) {
				forbidden[r.Path] = true
			}
		}
	}
	return forbidden
}
