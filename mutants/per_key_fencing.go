package mutants

import (
	"encoding/binary"

	"github.com/leasesim/leasesim/lease"
)

// keyPerKeyHighest prefixes the durable highest token per (resource, key)
// of perKeyFencing's store.
const keyPerKeyHighest = "mutant/per-key-fencing/highest/"

// perKeyFencing is a store that fences each key on its own: it accepts a
// write if its token is at least the highest accepted for that key, not
// for the resource the lease covers. A lease over several keys (a ledger's
// rows, a job's output objects, a shard's files) then protects none of
// them once it changes hands: a holder that paused, or whose writes were
// held up in the network, still writes every key its successor has not
// written yet, and the store mixes two holders' state. It is the storage
// service that checks a fencing token per object (a conditional put
// against each object's own stored token) while the lock covers many.
// With one key per lease it is the correct store.
//
// Technique: the store keeps its own durable highest token per key, in
// the node's storage beside the real store's keys and synced with them; a
// write at least that high is let through acceptStale (raised to the
// resource's highest, so the real store accepts it).
//
// Caught by P2 (a write under a token accepted after a write under a
// later one on the same resource) and P3 (the fenced register accepts a
// write below the highest), in multi-key-read-back; never where a lease
// covers one key.
func perKeyFencing() lease.Impl {
	impl := mutant("per-key-fencing", "the store fences each key on its own, not the lease's resource")
	impl.NewResource = func(env lease.Env) (lease.Resource, error) {
		store := env.Store
		keyOf := func(m lease.Message) string { return keyPerKeyHighest + m.Resource + "\x00" + m.Key }
		keyHighest := func(m lease.Message) uint64 {
			b, ok := store.Get(keyOf(m))
			if !ok || len(b) != 8 {
				return 0
			}
			return binary.BigEndian.Uint64(b)
		}
		return acceptStale(env, func(m lease.Message) bool {
			if m.Token < keyHighest(m) {
				return false // below the key's own highest: the real store fences it
			}
			// The real store syncs this with the write it accepts.
			store.Put(keyOf(m), binary.BigEndian.AppendUint64(nil, m.Token))
			return true
		})
	}
	return impl
}
