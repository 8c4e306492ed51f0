package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
)

// A summary lists every behaviour, zero for those no run reached, adds the
// runs' counts, and a merge adds the parts' counts.
func TestCoverageAddsAndMerges(t *testing.T) {
	c := newCoverage()
	require.Len(t, c, len(checker.Behaviours()))
	assert.Equal(t, len(checker.Behaviours()), len(c.Unreached(nil)), "nothing reached yet")

	var run checker.Coverage
	run[0], run[3] = 2, 1
	c.addRun(run)
	c.addRun(run)
	first, fourth := checker.Behaviours()[0].Name, checker.Behaviours()[3].Name
	assert.Equal(t, uint64(4), c[first])
	assert.Equal(t, uint64(2), c[fourth])
	assert.NotContains(t, c.Unreached(nil), first)
	assert.Contains(t, c.Unreached(nil), checker.Behaviours()[1].Name)

	other := newCoverage()
	other[first] = 1
	other["a-behaviour-of-a-newer-version"] = 7
	c.merge(other)
	assert.Equal(t, uint64(5), c[first])
	assert.Equal(t, uint64(7), c["a-behaviour-of-a-newer-version"], "what a shard measured is kept")
}

// A behaviour the implementation cannot reach is not flagged unreached:
// leasesim's protocol behaviours for an implementation with its own
// specification, checkpointed-task behaviours for one without checkpoints.
func TestCoverageNotApplicable(t *testing.T) {
	correct := lease.Correct()
	assert.Empty(t, notApplicable(correct.Spec, true), "leasesim's own can reach every behaviour")
	na := notApplicable("expiring-key", false)
	assert.Contains(t, na, "acquire-granted")
	assert.Contains(t, na, "handoff")
	assert.NotContains(t, na, "write-fenced")
	assert.NotContains(t, na, "belief-ended-deadline")
	c := newCoverage()
	for _, name := range c.Unreached(na) {
		assert.NotContains(t, na, name)
	}
	assert.Len(t, c.Unreached(na), len(checker.Behaviours())-len(na))
}
