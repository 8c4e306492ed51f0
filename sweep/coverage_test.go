package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
)

// A summary lists every behaviour, zero for those no run reached, adds the
// runs' counts, and a merge adds the parts' counts.
func TestCoverageAddsAndMerges(t *testing.T) {
	c := newCoverage()
	require.Len(t, c, len(checker.Behaviours()))
	assert.Equal(t, len(checker.Behaviours()), len(c.Unreached()), "nothing reached yet")

	var run checker.Coverage
	run[0], run[3] = 2, 1
	c.addRun(run)
	c.addRun(run)
	first, fourth := checker.Behaviours()[0].Name, checker.Behaviours()[3].Name
	assert.Equal(t, uint64(4), c[first])
	assert.Equal(t, uint64(2), c[fourth])
	assert.NotContains(t, c.Unreached(), first)
	assert.Contains(t, c.Unreached(), checker.Behaviours()[1].Name)

	other := newCoverage()
	other[first] = 1
	other["a-behaviour-of-a-newer-version"] = 7
	c.merge(other)
	assert.Equal(t, uint64(5), c[first])
	assert.Equal(t, uint64(7), c["a-behaviour-of-a-newer-version"], "what a shard measured is kept")
}
