package etcdraft

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"
)

// lessor is the replicated state every member applies from the log: the
// leases with their TTLs and checkpointed remaining TTLs, and the keys with
// their revisions. Expiry deadlines are not part of it: only the primary
// (the leader's lessor) keeps them, in memory, on its own clock.
type lessor struct {
	rev    int64
	leases []*leaseRec // sorted by id
	keys   []keyRec    // sorted by key
}

type leaseRec struct {
	id  int64
	ttl time.Duration
	// remaining is the last checkpointed remaining TTL; 0 means the full
	// TTL (never checkpointed, or kept alive since).
	remaining time.Duration
}

type keyRec struct {
	key, value  string
	create, mod int64
	lease       int64
}

func (l *lessor) leaseIndex(id int64) (int, bool) {
	return slices.BinarySearchFunc(l.leases, id, func(r *leaseRec, id int64) int { return compare(r.id, id) })
}

func (l *lessor) lease(id int64) *leaseRec {
	if i, ok := l.leaseIndex(id); ok {
		return l.leases[i]
	}
	return nil
}

func (l *lessor) keyIndex(k string) (int, bool) {
	return slices.BinarySearchFunc(l.keys, k, func(r keyRec, k string) int { return strings.Compare(r.key, k) })
}

func compare(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// result is what applying a command answers.
type result struct {
	err   ReplyErr
	ok    bool
	lease int64
	ttl   time.Duration
	key   keyRec // create: the key after it
}

// apply applies the command of the entry at index.
func (l *lessor) apply(index uint64, c command) result {
	switch c.kind {
	case cmdGrant:
		if c.ttl <= 0 {
			return result{err: ErrBadRequest}
		}
		id := int64(index)
		i, _ := l.leaseIndex(id)
		l.leases = slices.Insert(l.leases, i, &leaseRec{id: id, ttl: c.ttl})
		return result{lease: id, ttl: c.ttl}
	case cmdRevoke:
		i, ok := l.leaseIndex(c.lease)
		if !ok {
			return result{err: ErrLeaseNotFound}
		}
		l.revoke(i)
		return result{}
	case cmdCreate:
		if i, exists := l.keyIndex(c.key); exists {
			return result{key: l.keys[i]}
		}
		if c.lease != 0 && l.lease(c.lease) == nil {
			return result{err: ErrLeaseNotFound}
		}
		l.rev++
		k := keyRec{key: c.key, value: c.value, create: l.rev, mod: l.rev, lease: c.lease}
		i, _ := l.keyIndex(c.key)
		l.keys = slices.Insert(l.keys, i, k)
		return result{ok: true, key: k}
	case cmdCheckpoint:
		for _, cp := range c.checkpoints {
			if r := l.lease(cp.lease); r != nil {
				r.remaining = cp.remaining
			}
		}
		return result{}
	case cmdCheckpointTxn:
		if g, ok := l.keyIndex(c.guard); !ok || l.keys[g].create != c.token {
			return result{err: ErrFenced} // the comparison fails, nothing changes
		}
		i, exists := l.keyIndex(c.key)
		switch {
		case exists && l.keys[i].value == c.value:
			return result{ok: true, key: l.keys[i]} // stored already: a retry after an unknown outcome
		case exists && l.keys[i].value > c.value:
			return result{} // overtaken by a newer checkpoint under the token: accepted, nothing stored
		}
		l.rev++
		if exists {
			k := &l.keys[i]
			k.value, k.mod, k.lease = c.value, l.rev, 0
			return result{ok: true, key: *k}
		}
		k := keyRec{key: c.key, value: c.value, create: l.rev, mod: l.rev}
		l.keys = slices.Insert(l.keys, i, k)
		return result{ok: true, key: k}
	}
	return result{err: ErrBadRequest}
}

// revoke deletes lease i and its keys, adding one to the revision if it
// deleted any (etcd deletes them in one transaction).
func (l *lessor) revoke(i int) {
	id := l.leases[i].id
	l.leases = slices.Delete(l.leases, i, i+1)
	n := len(l.keys)
	l.keys = slices.DeleteFunc(l.keys, func(k keyRec) bool { return k.lease == id })
	if len(l.keys) < n {
		l.rev++
	}
}

// marshal encodes the state for a snapshot.
func (l *lessor) marshal() []byte {
	b := binary.AppendVarint(nil, l.rev)
	b = binary.AppendUvarint(b, uint64(len(l.leases)))
	for _, r := range l.leases {
		b = binary.AppendVarint(b, r.id)
		b = binary.AppendVarint(b, int64(r.ttl))
		b = binary.AppendVarint(b, int64(r.remaining))
	}
	b = binary.AppendUvarint(b, uint64(len(l.keys)))
	for _, k := range l.keys {
		b = appendString(b, k.key)
		b = appendString(b, k.value)
		b = binary.AppendVarint(b, k.create)
		b = binary.AppendVarint(b, k.mod)
		b = binary.AppendVarint(b, k.lease)
	}
	return b
}

// unmarshalLessor decodes a snapshot's state.
func unmarshalLessor(b []byte) (*lessor, error) {
	l := &lessor{}
	if len(b) == 0 {
		return l, nil
	}
	d := decoder{b: b}
	l.rev = d.varint()
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		l.leases = append(l.leases, &leaseRec{id: d.varint(), ttl: time.Duration(d.varint()),
			remaining: time.Duration(d.varint())})
	}
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		l.keys = append(l.keys, keyRec{key: d.string(), value: d.string(), create: d.varint(), mod: d.varint(),
			lease: d.varint()})
	}
	if d.err != nil {
		return nil, fmt.Errorf("decode lessor snapshot: %w", d.err)
	}
	return l, nil
}
