package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestStaleReleaseFreesTheSuccessorsLease(t *testing.T) {
	contrast(t, "stale-release", func(t *testing.T, f *fixture, broken bool) {
		first := f.acquire("c1", "r")
		require.Equal(t, lease.CodeOK, first.Err)
		f.expire()
		second := f.acquire("c2", "r")
		require.Equal(t, lease.CodeOK, second.Err)

		release := f.tokenAction("c1", lease.KindRelease, "r", first.Token)
		info, held := f.g.Lookup("r")
		if broken {
			assert.Equal(t, lease.CodeOK, release.Err, "c1's stale release succeeds")
			assert.Equal(t, first.Token, release.Token, "the reply names the releaser's token")
			assert.False(t, held, "and c2's lease is gone")
			third := f.acquire("c3", "r")
			assert.Equal(t, lease.CodeOK, third.Err, "c3 gets the lease while c2 believes")
			return
		}
		assert.Equal(t, lease.CodeFenced, release.Err)
		require.True(t, held)
		assert.Equal(t, second.Token, info.Token)
	})
}

func TestStaleReleaseStillReleasesTheHoldersOwnLease(t *testing.T) {
	f := newFixture(t, mustLookup(t, "stale-release"))
	grant := f.acquire("c1", "r")
	release := f.tokenAction("c1", lease.KindRelease, "r", grant.Token)
	assert.Equal(t, lease.CodeOK, release.Err)
	assert.Equal(t, grant.Token, release.Token)
	assert.Equal(t, lease.Addr("c1"), release.Client)
	_, held := f.g.Lookup("r")
	assert.False(t, held)
	again := f.tokenAction("c1", lease.KindRelease, "r", grant.Token)
	assert.Equal(t, lease.CodeLeaseExpired, again.Err, "with no lease there is nothing to free")
}
