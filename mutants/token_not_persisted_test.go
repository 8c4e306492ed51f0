package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestTokenNotPersistedReissuesTokenOneAfterARestart(t *testing.T) {
	contrast(t, "token-not-persisted", func(t *testing.T, f *fixture, broken bool) {
		for want := uint64(1); want <= 2; want++ {
			rep := f.acquire("c1", "r")
			require.Equal(t, lease.CodeOK, rep.Err)
			require.Equal(t, want, rep.Token)
			require.Equal(t, lease.CodeOK, f.tokenAction("c1", lease.KindRelease, "r", rep.Token).Err)
		}
		f.restartGrantor()
		f.w.Advance(f.cfg.RestartGrace())
		rep := f.acquire("c2", "r")
		require.Equal(t, lease.CodeOK, rep.Err, "the grace period still holds")
		if broken {
			assert.Equal(t, uint64(1), rep.Token, "token 1 is issued a second time")
		} else {
			assert.Equal(t, uint64(3), rep.Token, "tokens continue where they were")
		}
	})
}
