package checker

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// When porcupine finds a history not linearizable, P3's evidence shows its
// longest linearizable prefix and the operations that cannot follow it,
// each with the specification's reason (anishathalye/porcupine#21). Here,
// under the lessor window: a lease granted, a key created under it, then
// two reads, the first of which finds the key gone while the lease must
// still be live.
func TestP3EvidenceShowsTheLongestPrefix(t *testing.T) {
	op := func(client string, call, at, ret float64, in, out history.Payload) history.Operation {
		return history.Operation{Client: client, Server: "grantor", Call: secs(call), Processed: secs(at), Return: secs(ret),
			Input: in, Output: out}
	}
	ttl := 10 * time.Second
	h := withOps(&history.History{Lease: history.Lease{TTL: ttl, RhoPPB: 10_000_000}, Grantor: "grantor",
		Resource: "store", End: secs(60), Spec: "lessor"}, []history.Operation{
		op("h1", 0, 0.1, 0.2, history.Payload{Kind: "grant", TTL: ttl}, history.Payload{Kind: "grant_reply", TTL: ttl, Lease: 7}),
		op("h1", 1, 1.1, 1.2, history.Payload{Kind: "create", Key: "k", Value: "h1", Lease: 7},
			history.Payload{Kind: "create_reply", OK: true, Revision: 1, Value: "h1", Token: 1, Lease: 7, Version: "1"}),
		op("h2", 2, 2.1, 2.2, history.Payload{Kind: "get", Key: "k"}, history.Payload{Kind: "get_reply", Revision: 1}),
		op("h3", 3, 3.1, 3.2, history.Payload{Kind: "get", Key: "k"}, history.Payload{Kind: "get_reply", Revision: 1}),
	})
	r := Linearizability(h, Options{Spec: model.LessorWindowSpec(10_000_000)})
	require.Equal(t, Violated, r.Status, r.Summary)
	require.NotEmpty(t, r.Violations)
	ev := strings.Join(r.Violations[0].Evidence, "\n")
	assert.Contains(t, ev, "porcupine's longest linearizable prefix: 2 of the resource's 4 operations")
	assert.Contains(t, ev, "state after the prefix: rev 1; lease 7 ttl 10s live until")
	assert.Contains(t, ev, `cannot follow the prefix: get "k" by h2`)
	assert.Contains(t, ev, `"k" is absent, but it is attached to lease 7, which must still be live`)
	assert.NotContains(t, ev, `cannot follow the prefix: get "k" by h3`, "h2's read returned before h3's was called")
}
