package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// specGrants are, per specification, a success reply that grants h1 the
// lock and a reply to the same request that grants nothing.
var specGrants = []struct {
	spec              string
	in, out, refusedO history.Payload
}{
	{"expiring-key",
		history.Payload{Kind: "set_nx_px", Key: "lock:lock", Value: "h1/7", TTL: 5 * time.Second},
		history.Payload{Kind: "set_nx_px_reply", OK: true},
		history.Payload{Kind: "set_nx_px_reply", OK: false}},
	{"cas-record",
		history.Payload{Kind: "create", Resource: "lock", Key: "lock", Holder: "h1", TTL: 5 * time.Second},
		history.Payload{Kind: "create_reply", Resource: "lock", Key: "lock", Version: "1"},
		history.Payload{Kind: "create_reply", Resource: "lock", Key: "lock", Err: "already_exists"}},
	{"lessor",
		history.Payload{Kind: "create", Key: "lock/h1", Value: "h1", Lease: 42},
		history.Payload{Kind: "create_reply", OK: true, Revision: 7},
		history.Payload{Kind: "create_reply", OK: false, Revision: 7}},
}

// foreignOp adds an operation of the lease store in a spec of its own,
// processed at t, sent 1 ms before and returned 1 ms after.
func (b *hb) foreignOp(client string, t history.Time, in, out history.Payload) *hb {
	b.reqID++
	b.h.AppendOp(history.Operation{Client: client, Incarnation: 1, Server: b.h.Grantor, ID: b.reqID,
		Call: t - ms, Processed: t, Return: t + ms, Input: in, Output: out})
	return b
}

// No data is never a pass, whatever the spec: a holder granted the lock by
// its store's own success reply that reports no belief makes P1 unknown
// (not ok over the beliefs the recorder inferred from its writes), and its
// writes make P2 unknown, never violated. A refusal grants nothing; a
// holder that reports its belief is judged.
func TestSilentHolderUnderEverySpec(t *testing.T) {
	const ok = lease.CodeOK
	for _, g := range specGrants {
		t.Run(g.spec, func(t *testing.T) {
			silent := newHistory().foreignOp("h1", at(1000), g.in, g.out).
				inferred("h1", "lock", 7, at(1500)).write("h1", "lock", 7, at(1500), ok).
				belief("h2", "lock", 8, at(9000), at(12_000)).build()
			silent.Spec = g.spec
			p1, p2 := Exclusivity(silent), Fencing(silent)
			assert.Equal(t, Unknown, p1.Status, p1.Summary)
			assert.Contains(t, p1.Summary, "holder h1 was granted")
			assert.Contains(t, p1.Summary, "reported no belief")
			assert.Equal(t, Unknown, p2.Status, p2.Summary)
			assert.Contains(t, p2.Summary, "h1 reported no belief")

			believed := newHistory().foreignOp("h1", at(1000), g.in, g.out).
				belief("h1", "lock", 7, at(1001), at(5000)).write("h1", "lock", 7, at(1500), ok).
				belief("h2", "lock", 8, at(9000), at(12_000)).build()
			believed.Spec = g.spec
			assert.Equal(t, OK, Exclusivity(believed).Status, Exclusivity(believed).Summary)
			assert.Equal(t, OK, Fencing(believed).Status, Fencing(believed).Summary)

			refused := newHistory().foreignOp("h1", at(1000), g.in, g.refusedO).
				belief("h2", "lock", 8, at(9000), at(12_000)).build()
			refused.Spec = g.spec
			assert.Equal(t, OK, Exclusivity(refused).Status, "a refusal grants nothing: %s", Exclusivity(refused).Summary)
		})
	}
}

// A history with nothing in it judges nothing: P1 is unknown, P2 to P6
// unknown or not applicable, under every spec; none is ok.
func TestNothingToJudgeIsNeverOK(t *testing.T) {
	for _, spec := range []string{"lease-store", "expiring-key", "cas-record", "lessor", "zookeeper-session", "consul-session"} {
		t.Run(spec, func(t *testing.T) {
			h := newHistory().build()
			h.Spec = spec
			rs := Check(h, Options{})
			require.NotEmpty(t, rs)
			for _, r := range rs {
				assert.Contains(t, []Status{Unknown, NotApplicable}, r.Status, "%s: %s", r.Property, r.Summary)
				assert.NotEmpty(t, r.Summary, "%s says why", r.Property)
			}
		})
	}
}
