package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sweep"
)

// TestZooThroughTheCLI: the zoo's implementations are --impl names; a
// sweep over every scenario runs those they support and lists the others
// with the reason; run of an unsupported pair is bad usage naming what is
// missing; and every listed implementation is one simrun knows by prefix.
func TestZooThroughTheCLI(t *testing.T) {
	r := simrun(t, "sweep", "--impl", "zoo/redislock", "--scenario", "all", "--seeds", "1-2", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var s sweep.Summary
	oneJSONObject(t, r.stdout, &s)
	assert.Equal(t, "zoo/redislock", s.Impl)
	assert.NotEmpty(t, s.Scenarios)
	var skipped []string
	for _, sk := range s.Skipped {
		skipped = append(skipped, sk.Scenario)
		assert.Contains(t, sk.Reason, "needs ")
	}
	assert.Contains(t, skipped, "worker-crash-handoff")
	assert.NotContains(t, s.Scenarios, "worker-crash-handoff")

	r = simrun(t, "run", "--impl", "zoo/redislock", "--scenario", "service-registry", "--seed", "1")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "--impl zoo/redislock: scenario service-registry needs registrations")

	for _, impl := range implementations() {
		assert.True(t, impl.Name == "correct" || strings.HasPrefix(impl.Name, "mutant/") || strings.HasPrefix(impl.Name, "zoo/"),
			"%s: reproduction lines know simrun's implementations by these prefixes (scenarios/replay.go)", impl.Name)
	}
}

// TestCheckJudgesAZooHistory: the history a zoo implementation's run
// writes (its own protocol, its own spec in the header) is judged by simrun
// check with the same verdicts as the run, and a violation exits 1 naming
// the property.
func TestCheckJudgesAZooHistory(t *testing.T) {
	for _, tt := range []struct {
		impl     string
		scenario string
		code     int
	}{
		{"zoo/redislock", "kleppmann-gc-pause", exitOK},
		{"zoo/redislock/extend-ignores-refusal", "partition-heal", exitViolated},
		{"zoo/k8slease", "kleppmann-gc-pause", exitOK},
	} {
		t.Run(tt.impl, func(t *testing.T) {
			dir := t.TempDir()
			run := simrun(t, "run", "--impl", tt.impl, "--scenario", tt.scenario, "--seed", "1", "--out", dir, "--json")
			require.Equal(t, tt.code, run.code, run.stderr)
			var ran struct {
				Properties []struct{ Property, Status, Summary string }
			}
			oneJSONObject(t, run.stdout, &ran)
			check := simrun(t, "check", dir+"/history.jsonl", "--json")
			require.Equal(t, tt.code, check.code, check.stderr)
			var checked struct {
				Properties []struct{ Property, Status, Summary string }
			}
			oneJSONObject(t, check.stdout, &checked)
			assert.Equal(t, ran.Properties, checked.Properties, "the same verdicts from the file as in the run")
		})
	}
}
