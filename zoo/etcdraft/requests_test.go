package etcdraft

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/raft/v3"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
)

// anyNet records what a node sends; the test plays the other side.
type anyNet struct{ out []any }

func (n *anyNet) Send(_ lease.Addr, m lease.Message) { n.out = append(n.out, m) }
func (n *anyNet) SendAny(_ lease.Addr, m any)        { n.out = append(n.out, m) }

// takeSent returns the messages of type T sent so far, and forgets every
// message sent.
func takeSent[T any](n *anyNet) []T {
	var out []T
	for _, m := range n.out {
		if r, ok := m.(T); ok {
			out = append(out, r)
		}
	}
	n.out = nil
	return out
}

// TestKeepAliveAfterStaleReadIndex: a leader renews only if its
// keepalive's ReadIndex round started less than keepAliveFresh ago. In
// leader-change-load seeds 352, 541, 836, 849, 874 and 992 the leader got a
// keepalive just before a 2.5 s pause, its followers' acknowledgements
// queued while it was paused and were stepped first when it resumed: it
// renewed, at 35.5 s, a lease the new leader had revoked at 35.446 s.
func TestKeepAliveAfterStaleReadIndex(t *testing.T) {
	const ttl = 5 * time.Second
	o := settings{tick: 100 * time.Millisecond, electionTicks: 10, heartbeatTicks: 1}
	for _, tc := range []struct {
		name   string
		waited time.Duration // from the round's start to its serving
		want   ReplyErr
	}{
		{"served at once", 0, ErrNone},
		{"served just within the bound", o.electionTimeout()/2 - time.Millisecond, ErrNone},
		{"served at the bound", o.electionTimeout() / 2, ErrNotLeader},
		{"served after a 2.5 s pause (leader-change-load 352)", 2500 * time.Millisecond, ErrNotLeader},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := leasetest.NewWorld()
			env := w.Env("grantor", 1)
			net := &anyNet{}
			env.Net = net
			m := &member{env: env, net: net, o: o, id: 1, peers: lease.MemberAddrs("grantor", 3), st: &lessor{},
				leader: true, primary: true, expiry: map[int64]time.Duration{}, cpProposed: map[int64]time.Duration{}}
			g := m.st.apply(1, command{kind: cmdGrant, ttl: ttl})
			require.Equal(t, ErrNone, g.err)
			m.applied = 1
			w.Advance(10 * time.Second)
			asked := w.Now() - tc.waited
			m.expiry[g.lease] = w.Now() + time.Second // live at the leader
			m.waiting = []readWait{{index: 1, req: Request{Op: OpKeepAlive, Client: "h1", ID: 7, Lease: g.lease}, at: asked}}

			m.serveReads()

			got := takeSent[Reply](net)
			require.Len(t, got, 1)
			assert.Equal(t, tc.want, got[0].Err)
			assert.Empty(t, m.waiting)
			if tc.want == ErrNone {
				assert.Equal(t, ttl, got[0].TTL)
				assert.Equal(t, w.Now()+ttl, m.expiry[g.lease], "renewed from its answer")
			} else {
				assert.Equal(t, w.Now()+time.Second, m.expiry[g.lease], "not renewed")
			}
		})
	}
}

// TestReadWaitKeepsItsStart: the round's start survives its read state.
func TestReadWaitKeepsItsStart(t *testing.T) {
	m := &member{reads: []readWait{{index: 3, req: Request{Op: OpKeepAlive, ID: 9}, at: 42 * time.Second}}}
	m.readReady(raft.ReadState{Index: 17, RequestCtx: readCtx(3)})
	require.Len(t, m.waiting, 1)
	assert.Equal(t, readWait{index: 17, req: Request{Op: OpKeepAlive, ID: 9}, at: 42 * time.Second}, m.waiting[0])
	assert.Empty(t, m.reads)
}
