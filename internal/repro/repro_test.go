package repro

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSimrun(t *testing.T) {
	t.Cleanup(func() { SetProgram("") })
	tests := []struct {
		program string
		args    []string
		want    string
	}{
		{"", []string{"run", "--scenario", "swarm", "--seed", "7"}, "simrun run --scenario swarm --seed 7"},
		{"bin/simrun", []string{"run", "--impl", "mutant/stale-release"}, "bin/simrun run --impl mutant/stale-release"},
		{"./bin/simrun", []string{"tune", "--workload", "my file.jsonl"}, "./bin/simrun tune --workload 'my file.jsonl'"},
		{"", []string{"check", "it's.jsonl"}, `simrun check 'it'\''s.jsonl'`},
		{"", []string{"run", ""}, "simrun run ''"},
		{"/tmp/go-build123/b001/exe/simrun", []string{"check", "h.jsonl"}, "go run . check h.jsonl"},
		{"/opt/my tools/simrun", []string{"list"}, "'/opt/my tools/simrun' list"},
	}
	for _, tc := range tests {
		SetProgram(tc.program)
		assert.Equal(t, tc.want, Simrun(tc.args...))
	}
}

func TestGoTest(t *testing.T) {
	assert.Equal(t, `go test -run '^TestDoubleIsolation$/^seed=42$' ./scenarios`,
		GoTest("TestDoubleIsolation/seed=42", "./scenarios"))
	assert.Equal(t, `go test -run '^TestX\.y$/^seed=1$' -count=1 .`,
		GoTest("TestX.y/seed=1", ".", "-count=1"))
}

func TestPackageDir(t *testing.T) {
	dir, err := PackageDir()
	require.NoError(t, err)
	assert.Equal(t, "./internal/repro", dir)
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(root, "go.mod"))
	assert.FileExists(t, filepath.Join(root, "internal", "repro", "gotest.go"))
}

func TestAssign(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"LEASESIM_SCHEDULE", "scenarios/testdata/x.json", "LEASESIM_SCHEDULE=scenarios/testdata/x.json"},
		{"LEASESIM_SCHEDULE", "my dir/seed=7.json", "LEASESIM_SCHEDULE='my dir/seed=7.json'"},
		{"X", "", "X=''"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Assign(tc.name, tc.value))
	}
}

// A piped line feeds its input to the command as a shell would.
func TestPiped(t *testing.T) {
	assert.Equal(t, `echo '{"a":"it'\''s"}' | bin/simrun run --schedule -`,
		Piped(`{"a":"it's"}`, "bin/simrun run --schedule -"))
}
