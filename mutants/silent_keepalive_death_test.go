package mutants

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// keepaliveFixture has h1 hold "r" and counts the renewals that reach the
// grantor, dropping them while cut is set.
type keepaliveFixture struct {
	*fixture
	h       lease.Holder
	cut     bool
	renews  int             // renewals the grantor received
	toStore []lease.Message // what h1 sent to the store
	lost    []uint64        // tokens h1's OnLost reported
	grant   lease.Grant     // h1's first grant
}

func newKeepaliveFixture(t *testing.T, f *fixture) *keepaliveFixture {
	k := &keepaliveFixture{fixture: f}
	f.w.Intercept = func(from, to lease.Addr, m lease.Message) bool {
		if from == "h1" && to == resourceAddr {
			k.toStore = append(k.toStore, m)
		}
		if from == "h1" && m.Kind == lease.KindRenew {
			if k.cut {
				return false
			}
			k.renews++
		}
		return true
	}
	k.h = f.holder("h1")
	k.h.Acquire("r", lease.AcquireOptions{OnLost: func(_ string, token uint64, _ error) { k.lost = append(k.lost, token) }})
	f.w.Settle()
	g, ok := k.h.Valid("r")
	require.True(t, ok)
	k.grant = g
	return k
}

func TestSilentKeepaliveDeathAfterATimeout(t *testing.T) {
	contrast(t, "silent-keepalive-death", func(t *testing.T, f *fixture, broken bool) {
		k := newKeepaliveFixture(t, f)
		k.cut = true // the first renewal times out
		f.w.Advance(f.cfg.RenewInterval + f.cfg.RequestTimeout + time.Millisecond)
		k.cut = false
		f.w.Advance(3 * f.cfg.TTL)

		g, valid := k.h.Valid("r")
		if !broken {
			assert.Positive(t, k.renews, "the renewal loop retried and got through")
			assert.True(t, valid)
			return
		}
		assert.Zero(t, k.renews, "no renewal reached the grantor after the first failure")
		_, granted := f.g.Lookup("r")
		assert.False(t, granted, "the grantor let the lease expire")
		require.True(t, valid, "yet the holder still believes")
		assert.Equal(t, k.grant.Token, g.Token)
		assert.Empty(t, k.lost, "and nobody was told")

		k.h.Write("r", "x", []byte("zombie"), nil)
		f.w.Settle()
		require.NotEmpty(t, k.toStore)
		assert.Equal(t, k.grant.Token, k.toStore[len(k.toStore)-1].Token, "it writes under its old token")
	})
}

func TestSilentKeepaliveDeathAfterAnErrorReply(t *testing.T) {
	contrast(t, "silent-keepalive-death", func(t *testing.T, f *fixture, broken bool) {
		k := newKeepaliveFixture(t, f)
		f.restartGrantor() // the next renewal is refused: the lease was forgotten
		f.w.Advance(f.cfg.RenewInterval + time.Millisecond)
		require.Equal(t, 1, k.renews)

		f.w.Advance(3 * f.cfg.TTL)
		_, valid := k.h.Valid("r")
		if !broken {
			assert.Equal(t, []uint64{k.grant.Token}, k.lost, "the refusal ended the lease")
			return
		}
		assert.Equal(t, 1, k.renews, "the refusal killed the renewal loop")
		assert.True(t, valid, "the holder still believes")
		assert.Empty(t, k.lost)
	})
}

func TestSilentKeepaliveDeathRenewsANewGrantNormally(t *testing.T) {
	f := newFixture(t, mustLookup(t, "silent-keepalive-death"))
	k := newKeepaliveFixture(t, f)
	k.cut = true
	f.w.Advance(f.cfg.RenewInterval + f.cfg.RequestTimeout + time.Millisecond)
	k.cut = false
	k.h.Release("r")
	f.w.Settle()
	k.h.Acquire("r", lease.AcquireOptions{})
	f.w.Settle()
	g, ok := k.h.Valid("r")
	require.True(t, ok)
	require.Greater(t, g.Token, k.grant.Token)
	f.w.Advance(2 * f.cfg.RenewInterval)
	assert.Positive(t, k.renews, "the new grant's renewals go out")
}
