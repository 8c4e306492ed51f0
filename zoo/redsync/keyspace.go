package redsync

import (
	"encoding/binary"
	"strings"
	"time"

	"github.com/leasesim/leasesim/gohost"
)

// keyspace is the simulated Redis's one database: string values with an
// optional expiry instant on the server's clock. Like Redis, a key whose
// expiry has passed is gone (now > expireAt): it is still there at its
// expiry instant exactly. Expiry is lazy (checked on access), which Redis
// clients cannot tell from active expiry.
//
// With a durable store (appendonly yes, appendfsync always) every change
// is written to the node's Storage before the reply, with its absolute
// expiry instant (as the AOF's PEXPIREAT), and reloaded at restart;
// without one (Redis with persistence off, or an RDB snapshot that missed
// the last writes) a crash loses every key.
type keyspace struct {
	m     map[string]entry // looked up by key, never iterated
	store *gohost.Storage  // nil: volatile
}

// entry is one key's value and expiry (zero: none).
type entry struct {
	value    string
	expireAt time.Time
}

// aofPrefix prefixes the keys' records in Storage.
const aofPrefix = "aof/"

// newKeyspace returns the keyspace, reloaded from store when it is
// durable.
func newKeyspace(store *gohost.Storage) *keyspace {
	ks := &keyspace{m: make(map[string]entry), store: store}
	if store == nil {
		return ks
	}
	for _, k := range store.Keys() {
		key, found := strings.CutPrefix(k, aofPrefix)
		b, ok := store.Get(k)
		if !found || !ok || len(b) < 8 {
			continue
		}
		e := entry{value: string(b[8:])}
		if ns := int64(binary.BigEndian.Uint64(b)); ns != 0 {
			e.expireAt = time.Unix(0, ns)
		}
		ks.m[key] = e
	}
	return ks
}

// lookup returns key's entry if it is present at now, deleting it if it
// has expired.
func (ks *keyspace) lookup(key string, now time.Time) (entry, bool) {
	e, ok := ks.m[key]
	if ok && !e.expireAt.IsZero() && now.After(e.expireAt) {
		ks.del(key)
		return entry{}, false
	}
	return e, ok
}

// put stores e under key.
func (ks *keyspace) put(key string, e entry) {
	ks.m[key] = e
	if ks.store != nil {
		var ns int64
		if !e.expireAt.IsZero() {
			ns = e.expireAt.UnixNano()
		}
		ks.store.Put(aofPrefix+key, append(binary.BigEndian.AppendUint64(nil, uint64(ns)), e.value...))
	}
}

// del removes key.
func (ks *keyspace) del(key string) {
	delete(ks.m, key)
	if ks.store != nil {
		ks.store.Delete(aofPrefix + key)
	}
}
