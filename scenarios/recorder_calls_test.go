package scenarios

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

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
		for seq := range uint64(1000) {
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
	assert.Equal(t, int32(len(keys)), x.n)
	assert.Positive(t, x.prevFrom, "some requests have gone to the old table")
	assert.Zero(t, x.built, "no old request looked for yet")
	for i, k := range keys {
		got, found := x.lookup(&reqs, k)
		require.True(t, found, "%+v", k)
		assert.Equal(t, int32(i), got, "%+v", k)
		_, seen := x.reserve(&reqs, k)
		assert.True(t, seen, "%+v is indexed already", k)
	}
	assert.Equal(t, x.prevFrom, x.built, "the old requests indexed once looked for")
	assert.LessOrEqual(t, 2*int(x.built), len(x.old), "the old table at most half full")
	for _, k := range []opKey{{client: 5, reqID: 1 << 32}, {client: 0, reqID: 2 << 32}, {client: 0, reqID: 1 << 32, sentAt: -1}} {
		_, found := x.lookup(&reqs, k)
		assert.False(t, found, "%+v was never added", k)
	}
}

// The request index agrees with a map from key to index through runs long
// enough to move requests through both young tables into the old one (and
// grow it), on the same index reused (emptied): new requests, resends of a
// key it holds (found, not added again), a request id sent again at
// another time (a new request), clocks that step back (keys in the old
// table with a sentAt below their client's latest), and lookups of recent
// requests, of requests thousands of requests old, and of keys never sent.
func TestCallIndexAgreesWithMap(t *testing.T) {
	var fromOld, stepsBack int // lookups found in the old table; of them, below their client's latest sentAt
	rapid.Check(t, func(t *rapid.T) {
		clients := rapid.IntRange(1, 40).Draw(t, "clients")
		steps := rapid.IntRange(0, 5*youngCap).Draw(t, "steps")
		stepBack := rapid.Float64Range(0, 0.05).Draw(t, "stepBack")
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
		var x callIndex
		for run := range 2 {
			if run == 1 {
				x = x.emptied()
			}
			var reqs chunked[call]
			want := map[opKey]int32{}
			var keys []opKey
			clock := make([]time.Duration, clients)
			nextID := make([]uint64, clients)
			check := func(k opKey, what string) {
				i, ok := want[k]
				got, found := x.lookup(&reqs, k)
				if found != ok || (ok && got != i) {
					t.Fatalf("%s %+v: lookup %d, %v; want %d, %v", what, k, got, found, i, ok)
				}
				if found && got < x.prevFrom {
					fromOld++
					if k.sentAt < x.bounds[k.client].maxSent {
						stepsBack++
					}
				}
			}
			for range steps {
				c := rng.IntN(clients)
				clock[c] += time.Duration(1 + rng.IntN(1000))
				if rng.Float64() < stepBack {
					clock[c] -= time.Duration(rng.IntN(1 << 20)) // NTP steps the clock back
				}
				k := opKey{client: sim.NodeID(c), reqID: nextID[c], sentAt: clock[c]}
				switch p := rng.IntN(100); {
				case p < 5 && len(keys) > 0: // a key sent before, again
					k = keys[rng.IntN(len(keys))]
				case p < 10 && len(keys) > 0: // a request id sent before, at another time
					k = keys[rng.IntN(len(keys))]
					k.sentAt = clock[k.client]
				default:
					nextID[c]++
				}
				slot, seen := x.reserve(&reqs, k)
				_, had := want[k]
				if seen != had {
					t.Fatalf("reserve %+v: seen %v, want %v", k, seen, had)
				}
				if !seen {
					i := reqs.add(call{client: k.client, reqID: k.reqID, sentAt: k.sentAt})
					x.fill(slot, i)
					want[k] = i
					keys = append(keys, k)
				}
				check(keys[len(keys)-1-rng.IntN(min(len(keys), 64))], "recent")
				check(keys[rng.IntN(len(keys))], "any")
				check(opKey{client: sim.NodeID(rng.IntN(clients + 1)), reqID: uint64(rng.IntN(steps + 1)),
					sentAt: time.Duration(rng.Int64N(max(int64(clock[c]), 0) + 1))}, "maybe never sent")
			}
			for _, k := range keys {
				check(k, "at the end")
			}
		}
	})
	assert.Positive(t, fromOld, "some requests were found in the old table")
	assert.Positive(t, stepsBack, "some of them below their client's latest sentAt there")
}
