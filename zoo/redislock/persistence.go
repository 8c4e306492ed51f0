package redislock

import (
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// Persistence is how the server keeps its key space across a crash, as
// Redis's configuration chooses it. It is the difference between a lock
// that survives a server restart and one that does not.
type Persistence uint8

// The persistence modes.
const (
	// AppendFsyncAlways writes every change to a key to env.Store and syncs
	// it before the reply leaves (Redis: appendonly yes, appendfsync
	// always). After a restart every key is back with the expiry it had, so
	// a lock held before the crash is still held after it and the fencing
	// counter continues. The default.
	AppendFsyncAlways Persistence = iota
	// AppendFsyncEverySec writes every change at once but syncs once a
	// second (Redis's default AOF setting, appendfsync everysec): a crash
	// loses up to a second of acknowledged commands, the SET of a lock a
	// holder believes it holds and the INCR that gave it its token among
	// them.
	AppendFsyncEverySec
	// NoPersistence keeps keys in memory only (Redis with save "" and
	// appendonly no): a restart forgets every lock and every fencing
	// counter. This is the classic Redis-lock bug: a second client locks
	// what the first still believes it holds, under a token that may repeat.
	NoPersistence
)

var persistenceNames = []string{"appendfsync-always", "appendfsync-everysec", "no-persistence"}

// String returns the mode's name, as in Redis's configuration.
func (p Persistence) String() string {
	if int(p) < len(persistenceNames) {
		return persistenceNames[p]
	}
	return fmt.Sprintf("Persistence(%d)", uint8(p))
}

// fsyncInterval is how often AppendFsyncEverySec syncs: every second.
const fsyncInterval = time.Second

// Durable keys of the server.
const (
	// keyIndex lists the names of every key ever persisted, one per line,
	// in the order they were first written: Storage cannot list its keys.
	keyIndex = "redislock/server/index"
	// keyRecordPrefix + name is one key's record (see encodeEntry).
	keyRecordPrefix = "redislock/server/key/"
)

// entry is one key of the key space.
type entry struct {
	value     string
	expires   bool          // the key has a TTL
	expiresAt time.Duration // the last server reading at which it is present
}

// live reports whether the key is present at server reading now: as in
// Redis, a key is still there at its expiry instant and gone after it.
func (e entry) live(now time.Duration) bool { return !e.expires || now <= e.expiresAt }

// encodeEntry is the durable record of a key: a flag byte (1 if it
// expires), its expiry as a big-endian server reading, then its value.
func encodeEntry(e entry) []byte {
	b := make([]byte, 9, 9+len(e.value))
	if e.expires {
		b[0] = 1
	}
	binary.BigEndian.PutUint64(b[1:], uint64(e.expiresAt))
	return append(b, e.value...)
}

// decodeEntry reads a record written by encodeEntry. A record of another
// shape is a broken invariant of this package's own storage.
func decodeEntry(name string, b []byte) entry {
	if len(b) < 9 || b[0] > 1 {
		panic(fmt.Sprintf("redislock: invariant durable-key-format: key %q: record of %d bytes", name, len(b)))
	}
	return entry{expires: b[0] == 1, expiresAt: time.Duration(binary.BigEndian.Uint64(b[1:9])), value: string(b[9:])}
}

// durableKeys is the server's persisted key space: the records and the
// index that lists them.
type durableKeys struct {
	store   lease.Storage
	names   []string        // the index, in order
	indexed map[string]bool // looked up, never iterated
}

// loadKeys reads the persisted key space, dropping keys that expired by
// now. The monotonic clock of a process restarted on the same host keeps
// running (the simulator's does), so a stored expiry is still a reading of
// the same clock: the key expires when it would have without the crash.
func loadKeys(store lease.Storage, now time.Duration) (*durableKeys, map[string]*entry) {
	d := &durableKeys{store: store, indexed: make(map[string]bool)}
	keys := make(map[string]*entry)
	b, ok := store.Get(keyIndex)
	if !ok || len(b) == 0 {
		return d, keys
	}
	for _, name := range strings.Split(string(b), "\n") {
		d.names = append(d.names, name)
		d.indexed[name] = true
		rec, ok := store.Get(keyRecordPrefix + name)
		if !ok {
			continue
		}
		if e := decodeEntry(name, rec); e.live(now) {
			keys[name] = &e
		}
	}
	return d, keys
}

// put buffers the new state of key name (nil: deleted), indexing the name
// the first time it is written. Nothing is durable until Sync.
func (d *durableKeys) put(name string, e *entry) {
	if e == nil {
		d.store.Delete(keyRecordPrefix + name)
		return
	}
	if !d.indexed[name] {
		d.indexed[name] = true
		d.names = append(d.names, name)
		d.store.Put(keyIndex, []byte(strings.Join(d.names, "\n")))
	}
	d.store.Put(keyRecordPrefix+name, encodeEntry(*e))
}
