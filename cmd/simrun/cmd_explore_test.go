package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// explore finds a mutant, prints the shrunk schedule, the runs it took and
// a replay line that replays the violation; --out holds schedule.json and
// the corpus, as the help says.
func TestExploreFindsAndReplays(t *testing.T) {
	dir := t.TempDir()
	res := simrun(t, "explore", "--impl", "mutant/stale-release", "--budget", "40", "--max-attempts", "5", "--out", dir, "--json")
	require.Equal(t, exitViolated, res.code, res.stderr)
	var out exploreResult
	oneJSONObject(t, res.stdout, &out)
	require.NotNil(t, out.Failure)
	assert.Equal(t, out.Runs, out.Failure.Run)
	assert.Regexp(t, `^P[1-8]$`, out.Failure.Property)
	assert.Equal(t, filepath.Join(dir, "schedule.json"), out.Failure.ScheduleFile)
	assert.Contains(t, res.stderr, "exploring swarm with mutant/stale-release", "progress goes to stderr with --json")

	words := strings.Fields(out.Failure.Replay) // a temporary directory's path needs no quoting
	require.Equal(t, "simrun", words[0])
	replay := simrun(t, words[1:]...)
	assert.Equal(t, exitViolated, replay.code, "the replay line violates again:\n%s", replay.stdout)
	assert.Contains(t, replay.stdout, out.Failure.Property)

	text := simrun(t, "explore", "--impl", "mutant/stale-release", "--budget", "40", "--max-attempts", "5")
	require.Equal(t, exitViolated, text.code)
	assert.Contains(t, text.stdout, "runs to first failure: ")
	assert.Contains(t, text.stdout, "| simrun run --scenario swarm --seed ", "without --out the replay line pipes the schedule in")
}

// --scenario all explores every catalogue scenario the implementation
// supports, swarm first: a story that takes the bug's path finds it, the
// result names that story, and its replay line violates again.
func TestExploreAllScenarios(t *testing.T) {
	res := simrun(t, "explore", "--impl", "mutant/expiry-from-receipt", "--scenario", "all", "--budget", "40",
		"--max-attempts", "5", "--out", t.TempDir(), "--json")
	require.Equal(t, exitViolated, res.code, res.stderr)
	var out exploreResult
	oneJSONObject(t, res.stdout, &out)
	require.NotEmpty(t, out.Scenarios)
	assert.Equal(t, "swarm", out.Scenarios[0], "the primary: its nemesis draws the most fault kinds")
	assert.Contains(t, out.Scenarios, "partition-heal")
	require.NotNil(t, out.Failure)
	assert.Equal(t, "partition-heal", out.Scenario)
	assert.Contains(t, res.stderr, "exploring all ")
	replay := pasted(t, out.Failure.Replay)
	assert.Equal(t, exitViolated, replay.code, "the replay line violates again:\n%s", replay.stdout)
	assert.Contains(t, replay.stdout, out.Failure.Property)
}

// Within the budget on a correct implementation, explore exits 0 and says
// what was reached and what never was.
func TestExploreNothingFoundExitsZero(t *testing.T) {
	res := simrun(t, "explore", "--budget", "4")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, "no property violated in 4 runs")
	assert.Regexp(t, `reached \(\d+\): acquire-granted`, res.stdout)
	assert.Contains(t, res.stdout, "never reached (")
}

// Bad input exits 2 and names the flag.
func TestExploreBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--budget", "0"}, "--budget"},
		{[]string{"--max-attempts", "0"}, "--max-attempts"},
		{[]string{"--seed", "x"}, "--seed"},
		{[]string{"--impl", "nope"}, "--impl"},
		{[]string{"--scenario", "nope"}, "--scenario"},
		{[]string{"--scenario", "leader-stall"}, "--impl correct"},
		{[]string{"--out"}, "--out"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			res := simrun(t, append([]string{"explore"}, tc.args...)...)
			assert.Equal(t, exitUsage, res.code, res.stderr)
			assert.Contains(t, res.stderr, tc.want)
		})
	}
}

// explore's help states the exit codes the tests above give, and names
// exactly what --out writes.
func TestExploreHelp(t *testing.T) {
	res := simrun(t, "explore", "--help")
	require.Equal(t, exitOK, res.code)
	long, _, _ := strings.Cut(res.stdout, "\nUsage:")
	assert.Equal(t, []int{0, 1, 2, 3}, helpExitCodes(long))
	assert.Equal(t, []string{"corpus/", "schedule.json"}, helpOutFiles(long))

	dir := t.TempDir()
	require.Equal(t, exitViolated, simrun(t, "explore", "--impl", "mutant/stale-release", "--budget", "40",
		"--max-attempts", "3", "--out", dir).code)
	written := filesIn(t, dir)
	slices.Sort(written)
	assert.Equal(t, helpOutFiles(long), written)
	assert.NotEmpty(t, filesIn(t, filepath.Join(dir, "corpus")))
}
