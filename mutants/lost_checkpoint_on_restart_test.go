package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestLostCheckpointOnRestartForgetsAcceptedCheckpoints(t *testing.T) {
	contrast(t, "lost-checkpoint-on-restart", func(t *testing.T, f *fixture, broken bool) {
		grant := f.acquire("c1", "task")
		require.Equal(t, lease.CodeOK, grant.Err)
		ckpt := f.call("c1", grantorAddr, lease.Message{Kind: lease.KindCheckpoint, Resource: "task",
			Token: grant.Token, State: []byte("7")})
		require.Equal(t, lease.CodeOK, ckpt.Err, "accepted")

		read := func() lease.Message {
			return f.call("c2", grantorAddr, lease.Message{Kind: lease.KindReadCheckpoint, Resource: "task"})
		}
		assert.Equal(t, "7", string(read().State), "readable before the crash")
		f.restartGrantor()
		after := read()
		if broken {
			assert.Empty(t, after.State, "the accepted checkpoint is gone")
			assert.Zero(t, after.CheckpointToken)
			return
		}
		assert.Equal(t, "7", string(after.State))
		assert.Equal(t, grant.Token, after.CheckpointToken)
	})
}
