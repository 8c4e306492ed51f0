package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestNoRestartGraceGrantsAtOnceAfterARestart(t *testing.T) {
	contrast(t, "no-restart-grace", func(t *testing.T, f *fixture, broken bool) {
		first := f.acquire("c1", "r")
		require.Equal(t, lease.CodeOK, first.Err)
		f.restartGrantor()
		second := f.acquire("c2", "r")
		if broken {
			assert.Equal(t, lease.CodeOK, second.Err, "granted while c1 may still believe")
			assert.Equal(t, first.Token+1, second.Token, "tokens stay durable")
			return
		}
		assert.Equal(t, lease.CodeGrace, second.Err)
		assert.Equal(t, f.cfg.RestartGrace(), second.Remaining)
	})
}
