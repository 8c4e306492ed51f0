package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestRenewAfterExpiryRenewsAReGrantedLease(t *testing.T) {
	contrast(t, "renew-after-expiry", func(t *testing.T, f *fixture, broken bool) {
		first := f.acquire("c1", "r")
		require.Equal(t, lease.CodeOK, first.Err)
		f.expire()
		second := f.acquire("c2", "r")
		require.Equal(t, lease.CodeOK, second.Err)

		renew := f.tokenAction("c1", lease.KindRenew, "r", first.Token)
		info, ok := f.g.Lookup("r")
		require.True(t, ok)
		assert.Equal(t, second.Token, info.Token, "the grantor's own state still names c2")
		if broken {
			assert.Equal(t, lease.CodeOK, renew.Err, "c1 is told its lease was renewed")
			assert.Equal(t, first.Token, renew.Token)
			assert.Equal(t, f.cfg.TTL, renew.TTL)
			return
		}
		assert.Equal(t, lease.CodeFenced, renew.Err)
	})
}

func TestRenewAfterExpiryRenewsAForgottenLease(t *testing.T) {
	contrast(t, "renew-after-expiry", func(t *testing.T, f *fixture, broken bool) {
		first := f.acquire("c1", "r")
		require.Equal(t, lease.CodeOK, first.Err)
		f.restartGrantor()
		renew := f.tokenAction("c1", lease.KindRenew, "r", first.Token)
		if broken {
			assert.Equal(t, lease.CodeOK, renew.Err)
		} else {
			assert.Equal(t, lease.CodeLeaseExpired, renew.Err)
		}
	})
}
