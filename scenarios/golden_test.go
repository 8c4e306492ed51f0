package scenarios_test

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden_hashes.txt from this run")

// goldenFile pins the trace hash of every catalogue scenario for a few
// seeds, so that any change to the simulated path shows in review as a diff
// of this file. Regenerate with: go test -run '^TestGoldenHashes$' ./scenarios -update
const goldenFile = "testdata/golden_hashes.txt"

var goldenSeeds = []uint64{1, 2, 3}

// goldenHashes runs the catalogue on goldenSeeds and returns one line per
// run, "scenario seed hash", in catalogue order.
func goldenHashes(t *testing.T) []string {
	t.Helper()
	var lines []string
	for _, sc := range scenarios.CatalogFor(lease.Correct()) {
		for _, seed := range goldenSeeds {
			out, err := scenarios.Execute(sc, seed, scenarios.Options{})
			require.NoError(t, err)
			require.Zero(t, out.Sim.UndigestedSends, "%s seed %d: every message's contents must be in the hash", sc.Name, seed)
			lines = append(lines, fmt.Sprintf("%s %d %s", sc.Name, seed, out.Sim.TraceHashString()))
		}
	}
	return lines
}

func TestGoldenHashes(t *testing.T) {
	got := goldenHashes(t)
	if *updateGolden {
		body := "# scenario seed trace-hash; regenerate: go test -run '^TestGoldenHashes$' ./scenarios -update\n" +
			strings.Join(got, "\n") + "\n"
		require.NoError(t, os.MkdirAll(filepath.Dir(goldenFile), 0o755))
		require.NoError(t, os.WriteFile(goldenFile, []byte(body), 0o644))
		return
	}
	f, err := os.Open(goldenFile)
	require.NoError(t, err, "no golden hashes yet: run go test -run '^TestGoldenHashes$' ./scenarios -update")
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, want, got, "the simulated path changed; if that is intended, regenerate with "+
		"go test -run '^TestGoldenHashes$' ./scenarios -update and explain the change in the commit")
}
