package scenarios

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// A run's history does not depend on the runs before it in the process:
// the same run, before and after a larger one, records the same history.
func TestEarlierRunsLeaveNoTrace(t *testing.T) {
	history := func(sc Scenario, seed uint64) []byte {
		out, err := Execute(sc, seed, Options{})
		require.NoError(t, err)
		return historyJSON(t, out.History)
	}
	small := ThunderingHerd()
	small.Contenders = 3
	want := history(small, 1)
	big := history(Swarm(), 2)
	for range 3 {
		require.Equal(t, want, history(small, 1))
	}
	assert.Equal(t, big, history(Swarm(), 2))
}

// historyJSON returns h as JSON, with its operations.
func historyJSON(t *testing.T, h *history.History) []byte {
	t.Helper()
	j, err := json.Marshal(struct {
		*history.History
		Ops []history.Operation
	}{h, h.CopyOps()})
	require.NoError(t, err)
	return j
}
