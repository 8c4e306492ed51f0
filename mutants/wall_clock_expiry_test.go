package mutants

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// steppedWall is a wall clock that an NTP step can move.
type steppedWall struct {
	inner lease.WallClock
	step  time.Duration
}

func (w *steppedWall) WallNow() time.Time { return w.inner.WallNow().Add(w.step) }

func TestWallClockExpiryExpiresOnAForwardStep(t *testing.T) {
	contrast(t, "wall-clock-expiry", func(t *testing.T, f *fixture, broken bool) {
		first := f.acquire("c1", "r")
		require.Equal(t, lease.CodeOK, first.Err)
		f.w.Advance(time.Second)
		f.wall.step = 2 * f.cfg.TTL
		second := f.acquire("c2", "r")

		if broken {
			assert.Equal(t, lease.CodeOK, second.Err, "granted again one second into a %v lease", f.cfg.TTL)
			assert.Equal(t, first.Token+1, second.Token)
			return
		}
		assert.Equal(t, lease.CodeHeld, second.Err)
		info, ok := f.g.Lookup("r")
		require.True(t, ok)
		assert.Equal(t, first.Token, info.Token)
	}, withSteppedWall())
}

func TestWallClockExpiryWithoutAWallClockIsCorrect(t *testing.T) {
	f := newFixture(t, mustLookup(t, "wall-clock-expiry"), withoutWall())
	require.Equal(t, lease.CodeOK, f.acquire("c1", "r").Err)
	f.w.Advance(f.cfg.TTL)
	assert.Equal(t, lease.CodeHeld, f.acquire("c2", "r").Err)
}
