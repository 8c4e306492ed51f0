package k8slease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// cut drops every message to and from node.
func cut(node lease.Addr) func(envelope) bool {
	return func(e envelope) bool { return e.from == node || e.to == node }
}

// lead boots an API server and h1, and lets h1 become the leader.
func lead(t *testing.T, noRenewTimeout bool) (*testNet, *holder) {
	n := newTestNet(t)
	n.server()
	h1 := n.holder("h1", noRenewTimeout)
	h1.Acquire("lock", lease.AcquireOptions{})
	n.advance(time.Millisecond)
	_, ok := h1.Valid("lock")
	require.True(t, ok, "h1 leads after creating the lease")
	return n, h1
}

func TestFirstCandidateCreatesTheLease(t *testing.T) {
	n, h1 := lead(t, false)
	tm, err := TimingFor(testConfig())
	require.NoError(t, err)
	g, _ := h1.Valid("lock")
	assert.Equal(t, uint64(1), g.Token, "the creation is the first transition")
	ev, ok := n.last("h1", lease.EventGrant)
	require.True(t, ok)
	assert.Equal(t, tm.RenewDeadline, ev.Deadline, "belief ends RenewDeadline after the create was sent (at 0)")
	assert.Equal(t, g.Deadline, ev.Deadline)
}

// The leader renews every RetryPeriod by updating the record it last
// wrote, without reading it first; each renewal moves its deadline.
func TestLeaderRenewsOnTheFastPath(t *testing.T) {
	n, _ := lead(t, false)
	var ops []string
	n.drop = func(e envelope) bool {
		if q, ok := e.m.(*request); ok {
			ops = append(ops, q.Op)
		}
		return false
	}
	n.advance(3 * time.Second)
	require.NotEmpty(t, ops)
	for _, op := range ops {
		assert.Equal(t, opUpdate, op)
	}
	var last time.Duration
	for _, ev := range n.events {
		if ev.Kind == lease.EventRenew {
			assert.Greater(t, ev.Deadline, last, "renewals move the deadline forward")
			last = ev.Deadline
		}
	}
	assert.GreaterOrEqual(t, n.count("h1", lease.EventRenew), 3)
}

// A leader cut off from the API server believes until exactly
// RenewDeadline after it sent its last successful renewal, and not a
// nanosecond longer.
func TestLeaderStopsAtItsRenewDeadline(t *testing.T) {
	n, h1 := lead(t, false)
	n.advance(time.Second)
	n.drop = cut("h1")
	g, ok := h1.Valid("lock")
	require.True(t, ok)
	n.advance(g.Deadline - n.w.Now() - time.Nanosecond)
	_, ok = h1.Valid("lock")
	assert.True(t, ok, "valid just before the deadline")
	n.advance(time.Nanosecond)
	_, ok = h1.Valid("lock")
	assert.False(t, ok, "not valid at the deadline")
	ev, lost := n.last("h1", lease.EventLost)
	require.True(t, lost)
	assert.Equal(t, g.Deadline, ev.Local, "the loss is reported at the deadline")
}

// A candidate takes the lease only after the record has not changed for
// LeaseDuration on its own clock from when it saw the last change, and
// its update counts a transition.
func TestCandidateWaitsLeaseDurationFromTheLastChange(t *testing.T) {
	n, h1 := lead(t, false)
	tm, err := TimingFor(testConfig())
	require.NoError(t, err)
	h2 := n.holder("h2", false)
	h2.Acquire("lock", lease.AcquireOptions{})
	n.advance(2 * time.Second)
	n.drop = cut("h1")
	g1, _ := h1.Valid("lock")
	lastRenew, ok := n.last("h1", lease.EventRenew)
	require.True(t, ok)
	n.advance(3 * tm.LeaseDuration)
	grant, ok := n.last("h2", lease.EventGrant)
	require.True(t, ok, "h2 takes over")
	assert.Equal(t, uint64(2), grant.Token)
	assert.GreaterOrEqual(t, grant.Local, lastRenew.Local+tm.LeaseDuration,
		"not before LeaseDuration after the last change it could see")
	assert.Less(t, grant.Local, lastRenew.Local+tm.LeaseDuration+3*tm.RetryPeriod, "but soon after")
	assert.Less(t, g1.Deadline, grant.Local, "h1 stopped believing first")
	rec := n.nodes["apiserver"].(*apiServer).leases["lock"].rec
	assert.Equal(t, record{HolderIdentity: "h2", LeaseDuration: tm.LeaseDuration, AcquireTime: rec.AcquireTime,
		RenewTime: rec.RenewTime, LeaseTransitions: 2}, rec)
}

// Release ends belief at once and writes the record free, so a candidate
// takes it within a retry period instead of a LeaseDuration.
func TestReleaseFreesTheLeaseAtOnce(t *testing.T) {
	n, h1 := lead(t, false)
	tm, err := TimingFor(testConfig())
	require.NoError(t, err)
	h2 := n.holder("h2", false)
	h2.Acquire("lock", lease.AcquireOptions{})
	n.advance(time.Second)
	h1.Release("lock")
	_, ok := h1.Valid("lock")
	assert.False(t, ok)
	rel, ok := n.last("h1", lease.EventRelease)
	require.True(t, ok)
	assert.Equal(t, uint64(1), rel.Token)
	n.settle()
	rec := n.nodes["apiserver"].(*apiServer).leases["lock"].rec
	assert.Equal(t, "", rec.HolderIdentity, "the record is free")
	assert.Equal(t, uint64(1), rec.LeaseTransitions, "a release is no transition")
	n.advance(tm.RetryPeriod * 23 / 10)
	grant, ok := n.last("h2", lease.EventGrant)
	require.True(t, ok, "h2 takes the free lease within one jittered retry period")
	assert.Equal(t, uint64(2), grant.Token)
}

// A release that comes while a renewal is in flight waits for it, as
// client-go releases only after its renew loop returned: the renewal's
// success grants no belief, and the free record is written under the
// version it produced (not the stale one, which would conflict and leave
// the lease held for a LeaseDuration).
func TestReleaseDuringARenewalWaitsForIt(t *testing.T) {
	n, h1 := lead(t, false)
	var sent []*request
	n.drop = func(e envelope) bool {
		if q, ok := e.m.(*request); ok {
			sent = append(sent, q)
		}
		return false
	}
	for i := 0; len(n.queue) == 0 && i < 1000; i++ {
		n.w.Advance(time.Millisecond) // timers only: the renewal leaves, undelivered
	}
	require.Len(t, n.queue, 1, "a renewal is in flight")
	grants := n.count("h1", lease.EventGrant) + n.count("h1", lease.EventRenew)
	h1.Release("lock")
	require.Len(t, n.queue, 1, "nothing more is sent while the renewal is in flight")
	n.settle()
	require.Equal(t, opUpdate, sent[0].Op)
	assert.Equal(t, grants, n.count("h1", lease.EventGrant)+n.count("h1", lease.EventRenew),
		"the renewal's success grants no belief after the release")
	_, ok := h1.Valid("lock")
	assert.False(t, ok)
	require.Len(t, sent, 2)
	assert.Equal(t, "", sent[1].Record.HolderIdentity)
	rec := n.nodes["apiserver"].(*apiServer).leases["lock"].rec
	assert.Equal(t, "", rec.HolderIdentity, "the record is free")
}

// fencingStore refuses every write as stale.
type fencingStore struct{ n *testNet }

func (s fencingStore) Deliver(from lease.Addr, m lease.Message) {
	s.n.queue = append(s.n.queue, envelope{from: "store", to: from, m: lease.Message{Kind: lease.KindWriteReply,
		ReqID: m.ReqID, Client: m.Client, Resource: m.Resource, SentAt: m.SentAt, Err: lease.CodeFenced, Token: m.Token + 1}})
}

func TestFencedWriteEndsTheBelief(t *testing.T) {
	n := newTestNet(t)
	n.server()
	n.nodes["store"] = fencingStore{n: n}
	h1 := n.holder("h1", false)
	var lost error
	h1.Acquire("lock", lease.AcquireOptions{OnLost: func(_ string, token uint64, err error) {
		assert.Equal(t, uint64(1), token)
		lost = err
	}})
	n.advance(time.Millisecond)
	var written error
	h1.Write("lock", "k", []byte("v"), func(err error) { written = err })
	n.settle()
	assert.ErrorIs(t, written, lease.ErrFenced)
	assert.ErrorIs(t, lost, lease.ErrFenced)
	_, ok := h1.Valid("lock")
	assert.False(t, ok)
	_, ok = n.last("h1", lease.EventFenced)
	assert.True(t, ok)
}

func TestWriteWithoutTheLeaseSendsNothing(t *testing.T) {
	n := newTestNet(t)
	h1 := n.holder("h1", false)
	var written error
	h1.Write("lock", "k", []byte("v"), func(err error) { written = err })
	assert.ErrorIs(t, written, lease.ErrLeaseExpired)
	assert.Empty(t, n.queue)
}

// A restarted holder is a new identity: it finds its previous life in the
// record and waits LeaseDuration like any candidate, then counts a
// transition.
func TestRestartedHolderIsANewCandidate(t *testing.T) {
	n, _ := lead(t, false)
	tm, err := TimingFor(testConfig())
	require.NoError(t, err)
	n.advance(time.Second)
	n.w.Crash("h1")
	crashedAt := n.w.Now()
	h1 := n.holder("h1", false)
	require.Equal(t, uint64(1), h1.incarnation)
	h1.Acquire("lock", lease.AcquireOptions{})
	n.advance(tm.LeaseDuration - tm.RetryPeriod)
	_, ok := h1.Valid("lock")
	assert.False(t, ok, "no shortcut for the new incarnation")
	n.advance(3 * tm.RetryPeriod)
	g, ok := h1.Valid("lock")
	require.True(t, ok)
	assert.Equal(t, uint64(2), g.Token)
	grant, _ := n.last("h1", lease.EventGrant)
	assert.GreaterOrEqual(t, grant.Local, crashedAt+tm.LeaseDuration)
}

// The mutant's renewals never time out, and it checks RenewDeadline only
// when an attempt ends: cut off, it leads for good, while the correct
// elector stops at its deadline.
func TestMutantLeadsWhileItsRenewalHangs(t *testing.T) {
	for _, tc := range []struct {
		name           string
		noRenewTimeout bool
		leads          bool
	}{
		{"correct", false, false},
		{"mutant", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, h1 := lead(t, tc.noRenewTimeout)
			n.advance(time.Second)
			n.drop = cut("h1")
			n.advance(time.Minute)
			_, ok := h1.Valid("lock")
			assert.Equal(t, tc.leads, ok)
			_, lost := n.last("h1", lease.EventLost)
			assert.Equal(t, !tc.leads, lost)
		})
	}
}

// The mutant still stops when an attempt fails RenewDeadline after its
// round began: a refusal, not a hang.
func TestMutantStopsWhenAFailedAttemptEndsItsRound(t *testing.T) {
	n, h1 := lead(t, true)
	tm, err := TimingFor(testConfig())
	require.NoError(t, err)
	n.advance(time.Second)
	n.drop = func(e envelope) bool {
		q, ok := e.m.(*request)
		if ok && e.from == "h1" {
			n.queue = append(n.queue, envelope{from: "apiserver", to: "h1", m: &response{Op: q.Op + "_reply",
				Client: q.Client, ID: q.ID, Name: q.Name, Err: errBadRequest}})
			return true
		}
		return false
	}
	n.advance(2 * tm.RenewDeadline)
	_, ok := h1.Valid("lock")
	assert.False(t, ok)
	ev, lost := n.last("h1", lease.EventLost)
	require.True(t, lost)
	renewed, ok := n.last("h1", lease.EventRenew)
	require.True(t, ok)
	assert.GreaterOrEqual(t, ev.Local, renewed.Local+tm.RenewDeadline, "not before its round ran out")
	assert.Less(t, ev.Local, renewed.Local+tm.RenewDeadline+2*tm.RetryPeriod, "at the first failure after that")
}
