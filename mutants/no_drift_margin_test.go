package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestNoDriftMarginBelievesTheWholeTTL(t *testing.T) {
	contrast(t, "no-drift-margin", func(t *testing.T, f *fixture, broken bool) {
		h := f.holder("h1")
		h.Acquire("r", lease.AcquireOptions{})
		f.w.Settle()
		g, ok := h.Valid("r")
		require.True(t, ok)
		if broken {
			assert.Equal(t, f.cfg.TTL, g.Deadline, "no drift allowance, no margin")
		} else {
			assert.Equal(t, f.cfg.HolderValidity(f.cfg.TTL), g.Deadline)
		}
		info, ok := f.g.Lookup("r")
		require.True(t, ok)
		assert.Equal(t, f.cfg.GrantorHold(f.cfg.TTL), info.ExpiresAt, "the grantor keeps the real configuration")
	})
}
