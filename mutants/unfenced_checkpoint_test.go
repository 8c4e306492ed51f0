package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestUnfencedCheckpointLetsAStaleHolderOverwrite(t *testing.T) {
	contrast(t, "unfenced-checkpoint", func(t *testing.T, f *fixture, broken bool) {
		checkpoint := func(from lease.Addr, token uint64, state string) lease.Message {
			return f.call(from, grantorAddr, lease.Message{Kind: lease.KindCheckpoint, Resource: "task",
				Token: token, State: []byte(state)})
		}
		first := f.acquire("w1", "task")
		require.Equal(t, lease.CodeOK, checkpoint("w1", first.Token, "4").Err)
		f.expire()
		second := f.acquire("w2", "task")
		require.Equal(t, "4", string(second.State), "w2 resumes from w1's checkpoint")
		require.Equal(t, lease.CodeOK, checkpoint("w2", second.Token, "8").Err)

		stale := checkpoint("w1", first.Token, "5")
		read := f.call("r", grantorAddr, lease.Message{Kind: lease.KindReadCheckpoint, Resource: "task"})
		info, ok := f.g.Lookup("task")
		require.True(t, ok)
		assert.Equal(t, second.Token, info.Token, "w2 still holds the lease")
		if broken {
			assert.Equal(t, lease.CodeOK, stale.Err, "the zombie's checkpoint is accepted")
			assert.Equal(t, first.Token, stale.Token, "under its own token, as far as it can tell")
			assert.Equal(t, "5", string(read.State), "and it overwrote w2's progress")
			return
		}
		assert.Equal(t, lease.CodeFenced, stale.Err)
		assert.Equal(t, "8", string(read.State))
		assert.Equal(t, second.Token, read.CheckpointToken)
	})
}

func TestUnfencedCheckpointWithoutALeaseIsFenced(t *testing.T) {
	f := newFixture(t, mustLookup(t, "unfenced-checkpoint"))
	first := f.acquire("w1", "task")
	f.expire()
	stale := f.call("w1", grantorAddr, lease.Message{Kind: lease.KindCheckpoint, Resource: "task",
		Token: first.Token, State: []byte("1")})
	assert.Equal(t, lease.CodeFenced, stale.Err, "no current lease to borrow")
}
