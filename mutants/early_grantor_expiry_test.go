package mutants

import (
	"math"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/lease"
)

func TestEarlyGrantorExpiryHoldsForTTLTimesOneMinusRho(t *testing.T) {
	contrast(t, "early-grantor-expiry", func(t *testing.T, f *fixture, broken bool) {
		first := f.acquire("c1", "r")
		require.Equal(t, lease.CodeOK, first.Err)
		assert.Equal(t, f.cfg.TTL, first.TTL, "the reply carries the requested TTL either way")
		renew := f.tokenAction("c1", lease.KindRenew, "r", first.Token)
		assert.Equal(t, f.cfg.TTL, renew.TTL)

		info, ok := f.g.Lookup("r")
		require.True(t, ok)
		hold := info.ExpiresAt - f.w.Now()
		early := f.cfg.TTL - time.Duration(float64(f.cfg.TTL)*f.cfg.Rho) // 9.5 s
		if broken {
			assert.InDelta(t, float64(early), float64(hold), 2, "TTL×(1−rho)")
		} else {
			assert.Equal(t, f.cfg.GrantorHold(f.cfg.TTL), hold, "TTL×(1+rho)")
		}

		f.w.Advance(early + time.Millisecond)
		second := f.acquire("c2", "r")
		if broken {
			assert.Equal(t, lease.CodeOK, second.Err, "re-granted before TTL×(1+rho)")
		} else {
			assert.Equal(t, lease.CodeHeld, second.Err)
		}
	})
}

func TestEarlyGrantorExpiryLeavesTTLsNearTheMinimum(t *testing.T) {
	f := newFixture(t, mustLookup(t, "early-grantor-expiry"))
	rep := f.call("c1", grantorAddr, lease.Message{Kind: lease.KindAcquire, Resource: "r", TTL: f.cfg.TTLMin})
	require.Equal(t, lease.CodeOK, rep.Err)
	assert.Equal(t, f.cfg.TTLMin, rep.TTL)
	info, ok := f.g.Lookup("r")
	require.True(t, ok)
	assert.Equal(t, f.cfg.GrantorHold(f.cfg.TTLMin), info.ExpiresAt-f.w.Now(), "granted in full")
}

// The grantor's hold of a shrunk TTL is TTL×(1−rho), to a few nanoseconds
// of rounding, and never more than the TTL.
func TestShrinkTTLProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ttl := time.Duration(rapid.Int64Range(1, int64(1000*time.Hour)).Draw(t, "ttl"))
		rho := rapid.Float64Range(0, 0.499).Draw(t, "rho")
		cfg := lease.Config{Rho: rho}
		ppb := uint64(cfgPPB(rho))
		hold := cfg.GrantorHold(shrinkTTL(ttl, ppb))

		want := new(big.Int).Mul(big.NewInt(int64(ttl)), big.NewInt(int64(ppbOne-ppb)))
		want.Quo(want, big.NewInt(ppbOne)) // floor(TTL×(1−rho))
		diff := int64(hold) - want.Int64()
		if diff < -2 || diff > 1 {
			t.Fatalf("ttl %v rho %v: hold %v, want %v (−2ns, +1ns)", ttl, rho, hold, want)
		}
		if hold > ttl {
			t.Fatalf("ttl %v rho %v: hold %v beyond the TTL", ttl, rho, hold)
		}
	})
}

// cfgPPB converts rho to parts per billion as lease.Config does.
func cfgPPB(rho float64) int64 { return int64(math.Round(rho * ppbOne)) }
