package scenarios

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run's history does not depend on the runs before it in the process,
// whose recorder tables it may reuse (recorderScratch): the same run, before
// and after a larger one, records the same history.
func TestRecorderScratchLeavesNoTrace(t *testing.T) {
	history := func(sc Scenario, seed uint64) []byte {
		out, err := Execute(sc, seed, Options{})
		require.NoError(t, err)
		j, err := json.Marshal(out.History)
		require.NoError(t, err)
		return j
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
