package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// The request index finds every request it was given, by all three parts
// of its key, through its growth, and refuses a key it holds already.
func TestCallIndexFindsEveryRequest(t *testing.T) {
	var x callIndex
	var reqs chunked[call]
	var keys []opKey
	// Keys that differ in one part only: the same request id from other
	// clients, and again after a restart (another sentAt).
	for client := range sim.NodeID(5) {
		for seq := range uint64(300) {
			for _, sentAt := range []time.Duration{time.Duration(seq) * time.Millisecond, time.Hour + time.Duration(seq)} {
				keys = append(keys, opKey{client: client, reqID: 1<<32 | seq, sentAt: sentAt})
			}
		}
	}
	_, found := x.lookup(&reqs, keys[0])
	assert.False(t, found, "an empty index finds nothing")
	for _, k := range keys {
		slot, seen := x.reserve(&reqs, k)
		require.False(t, seen, "%+v is new", k)
		x.fill(slot, reqs.add(call{client: k.client, reqID: k.reqID, sentAt: k.sentAt}))
	}
	assert.Equal(t, len(keys), x.n)
	assert.LessOrEqual(t, 2*x.n, len(x.slots), "at most half full")
	for i, k := range keys {
		got, found := x.lookup(&reqs, k)
		require.True(t, found, "%+v", k)
		assert.Equal(t, int32(i), got, "%+v", k)
		_, seen := x.reserve(&reqs, k)
		assert.True(t, seen, "%+v is indexed already", k)
	}
	for _, k := range []opKey{{client: 5, reqID: 1 << 32}, {client: 0, reqID: 2 << 32}, {client: 0, reqID: 1 << 32, sentAt: -1}} {
		_, found := x.lookup(&reqs, k)
		assert.False(t, found, "%+v was never added", k)
	}
}
