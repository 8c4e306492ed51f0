package mutants

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestExpiryFromReceiptCountsFromTheDelayedReply(t *testing.T) {
	const delay = time.Second // below the request timeout, so the grant is taken
	contrast(t, "expiry-from-receipt", func(t *testing.T, f *fixture, broken bool) {
		var held []lease.Message
		f.w.Intercept = func(_, to lease.Addr, m lease.Message) bool {
			if to == "h1" && m.Kind == lease.KindAcquireReply && len(held) == 0 {
				held = append(held, m)
				return false
			}
			return true
		}
		h := f.holder("h1")
		sentAt := f.w.Now()
		h.Acquire("r", lease.AcquireOptions{})
		f.w.Settle()
		require.Len(t, held, 1)
		f.w.Advance(delay)
		f.w.Send(grantorAddr, "h1", held[0])
		f.w.Settle()

		g, ok := h.Valid("r")
		require.True(t, ok)
		validity := f.cfg.HolderValidity(f.cfg.TTL)
		if broken {
			assert.Equal(t, sentAt+delay+validity, g.Deadline, "counted from the reply's receipt")
		} else {
			assert.Equal(t, sentAt+validity, g.Deadline, "counted from the request's send")
		}
	})
}
