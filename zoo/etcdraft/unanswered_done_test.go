package etcdraft_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/zoo/etcdraft"
)

// In swarm seed 495 the worker that finished task t1 asks a member to
// checkpoint it done and crashes; the log commits the checkpoint, no member
// answers, and no acceptance is recorded. The next worker granted t1 is
// handed it as done: the task is known complete then, long before its due
// time, and P4 holds (it failed before the history kept such completions).
func TestADoneCheckpointCommittedUnansweredCompletesTheTask(t *testing.T) {
	sc, err := scenarios.Lookup("swarm")
	require.NoError(t, err)
	out, err := scenarios.Execute(sc, 495, scenarios.Options{Impl: etcdraft.Impl()})
	require.NoError(t, err)
	h := out.History

	var t1 *history.TaskRecord
	for i := range h.Tasks {
		if h.Tasks[i].ID == "t1" {
			t1 = &h.Tasks[i]
		}
	}
	require.NotNil(t, t1)
	var op history.Operation
	for i := range h.NumOps() {
		h.LoadOp(i, &op)
		accepted := op.Input.Kind == "checkpoint" && op.Input.Resource == "t1" && op.Output.OK &&
			history.DecodeProgress(op.Input.State).Done
		require.False(t, accepted, "the story needs t1's done checkpoint unanswered, but %v accepted it", op.Server)
	}
	require.NotEqual(t, history.Never, t1.Done, "handed over as done")
	assert.NotEqual(t, history.Never, t1.DoneUnanswered)
	assert.Less(t, t1.DoneUnanswered, t1.Done, "asked before it was known done")
	for _, c := range out.Checks {
		if c.Property == "P4" {
			assert.Equal(t, checker.OK, c.Status, c.Summary)
		}
	}
}
