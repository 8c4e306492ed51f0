package etcdraft

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
)

// TestKeepAliveAfterLapsedDeadline: a keepalive answered after the
// holder's deadline passed, while the deadline's timer has not run yet
// (both come due at once when a pause ends), ends belief and grants again
// from a fresh read of the checkpoint: it does not silently extend a belief
// the owner already saw end. Swarm seed 986: w1's result write was answered
// at the same instant, saw Valid fail and dropped the task's completion;
// the belief was then extended without a new grant, and w1 held t12 to
// the end of the run without completing it.
func TestKeepAliveAfterLapsedDeadline(t *testing.T) {
	w := leasetest.NewWorld()
	env := w.Env("w1", 1)
	net := &anyNet{}
	env.Net = net
	cfg := lease.Config{TTL: 5 * time.Second}.WithDefaults()
	h, err := newHolder(env, cfg, lease.MemberAddrs("grantor", 3), "store")
	require.NoError(t, err)
	var heard []string
	h.Acquire("t12", lease.AcquireOptions{
		OnGrant: func(g lease.Grant) { heard = append(heard, fmt.Sprintf("grant %d", g.Token)) },
		OnLost:  func(_ string, token uint64, _ error) { heard = append(heard, fmt.Sprintf("lost %d", token)) },
	})
	// answer replies to the one request the holder sent, which must be op.
	answer := func(op Op, r Reply) {
		t.Helper()
		sent := takeSent[Request](net)
		require.Len(t, sent, 1)
		require.Equal(t, op, sent[0].Op)
		r.Op, r.Client, r.ID = op, sent[0].Client, sent[0].ID
		h.DeliverAny("grantor", r)
	}
	answer(OpGrant, Reply{Lease: 7, TTL: cfg.TTL})
	answer(OpCreate, Reply{OK: true, CreateRevision: 3, KeyLease: 7})
	answer(OpGet, Reply{}) // no checkpoint
	w.Advance(0)
	require.Equal(t, []string{"grant 3"}, heard)
	_, ok := h.Valid("t12")
	require.True(t, ok)

	w.Advance(cfg.RenewInterval) // the keepalive leaves; its answer comes after a pause
	w.Pause("w1")
	w.Advance(cfg.HolderValidity(cfg.TTL) - cfg.RenewInterval + 500*time.Millisecond)
	w.Resume("w1") // the deadline's timer is due now, not yet run
	_, ok = h.Valid("t12")
	require.False(t, ok, "the owner sees belief ended")

	answer(OpKeepAlive, Reply{TTL: cfg.TTL})
	assert.Equal(t, []string{"grant 3", "lost 3"}, heard, "belief lapses at the answer")
	answer(OpGet, Reply{}) // granted again from a fresh read of the checkpoint
	w.Advance(0)
	assert.Equal(t, []string{"grant 3", "lost 3", "grant 3"}, heard)
	_, ok = h.Valid("t12")
	assert.True(t, ok)
}
