package scenarios

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
)

// The simrun line is printed only when simrun would run exactly what the
// Go test ran.
func TestCLIKnows(t *testing.T) {
	broken, err := mutants.Lookup("mutant/unfenced-resource")
	if err != nil {
		t.Fatal(err)
	}
	mine := broken
	mine.Name = "mine"
	calledCorrect := broken
	calledCorrect.Name = lease.Correct().Name
	ownCorrect := lease.Correct()
	ownCorrect.Name = "mine"
	changed := KleppmannGCPause()
	changed.Duration++
	renamed := KleppmannGCPause()
	renamed.Name = "my-gc"
	tests := []struct {
		name string
		sc   Scenario
		opts Options
		want bool
	}{
		{"catalogue, default impl", KleppmannGCPause(), Options{}, true},
		{"catalogue, correct impl", Swarm(), Options{Impl: lease.Correct()}, true},
		{"catalogue, mutant", KleppmannGCPause(), Options{Impl: broken}, true},
		{"catalogue name, changed scenario", changed, Options{}, false},
		{"own scenario", renamed, Options{}, false},
		{"own implementation", KleppmannGCPause(), Options{Impl: mine}, false},
		{"correct constructors under another name", KleppmannGCPause(), Options{Impl: ownCorrect}, false},
		{"another implementation named correct", KleppmannGCPause(), Options{Impl: calledCorrect}, false},
		{"a schedule in the options", KleppmannGCPause(), Options{Schedule: &faults.Schedule{}}, false},
		{"checker options", KleppmannGCPause(), Options{Check: checker.Options{Skip: true}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, cliKnows(tc.sc, tc.opts))
		})
	}
}

// simrun --impl knows every mutant by the prefix this package assumes.
func TestMutantPrefixMatchesPackageMutants(t *testing.T) {
	assert.Equal(t, mutants.Prefix, mutantPrefix)
	for _, m := range mutants.All() {
		assert.True(t, strings.HasPrefix(m.Name, mutantPrefix), m.Name)
		assert.True(t, cliKnowsImpl(m), m.Name)
	}
}

func TestSimrunLine(t *testing.T) {
	tests := []struct {
		scenario, impl string
		seed           uint64
		schedule       string
		want           string
	}{
		{"swarm", "", 7, "", "simrun run --scenario swarm --seed 7"},
		{"swarm", "correct", 7, "", "simrun run --scenario swarm --seed 7"},
		{"clock-step", "mutant/wall-clock-expiry", 1, "", "simrun run --scenario clock-step --seed 1 --impl mutant/wall-clock-expiry"},
		{"swarm", "", 3, "pkg/testdata/leasesim-shrunk/TestX/seed=3.json",
			"simrun run --scenario swarm --seed 3 --schedule pkg/testdata/leasesim-shrunk/TestX/seed=3.json"},
		{"swarm", "", 3, "my dir/s.json", "simrun run --scenario swarm --seed 3 --schedule 'my dir/s.json'"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, simrunLine(tc.scenario, tc.impl, tc.seed, tc.schedule))
	}
}

func TestLinesFor(t *testing.T) {
	out := &Outcome{Scenario: "swarm", Seed: 4}
	tests := []struct {
		name     string
		cli      bool
		schedule string
		want     string
	}{
		{"go test only", false, "", "  replay: go test -run '^TestLinesFor$' ./scenarios"},
		{"both", true, "", "  replay: go test -run '^TestLinesFor$' ./scenarios\n      or: simrun run --scenario swarm --seed 4"},
		{"with a schedule", true, "scenarios/x y.json",
			"  replay: LEASESIM_SCHEDULE='scenarios/x y.json' go test -run '^TestLinesFor$' ./scenarios\n" +
				"      or: simrun run --scenario swarm --seed 4 --schedule 'scenarios/x y.json'"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, linesFor(t, out, tc.cli, tc.schedule).String(), tc.name)
	}
}
