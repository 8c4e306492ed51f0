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
