package holderkit

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/leasesim/leasesim/lease"
)

// RequestIDs draws a node's request ids: the node's boot number, counted
// durably, in the high 32 bits and a counter in the low 32, so that an id
// never repeats across restarts and a reply to an earlier incarnation's
// request is never taken for a reply to this one's.
type RequestIDs struct {
	name string // the implementation, for invariant panics
	boot uint64
	seq  uint32
}

// NewRequestIDs counts this boot under key in store, durably (the first
// boot is 1), and returns the ids of this boot. name names the
// implementation in the panics of broken invariants: a counter that is not
// 8 bytes, or boots or ids run out.
func NewRequestIDs(store lease.Storage, key, name string) (*RequestIDs, error) {
	var boot uint64
	if b, ok := store.Get(key); ok {
		if len(b) != 8 {
			panic(fmt.Sprintf("%s: invariant durable-boots-format: %d bytes", name, len(b)))
		}
		boot = binary.BigEndian.Uint64(b)
	}
	boot++
	if boot > math.MaxUint32 {
		panic(fmt.Sprintf("%s: invariant boots-fit-request-id: boot %d", name, boot))
	}
	store.Put(key, binary.BigEndian.AppendUint64(nil, boot))
	if err := store.Sync(); err != nil {
		return nil, fmt.Errorf("persisting boot %d: %w", boot, err)
	}
	return &RequestIDs{name: name, boot: boot}, nil
}

// Next returns a request id never used before by this node.
func (r *RequestIDs) Next() uint64 {
	if r.seq == math.MaxUint32 {
		panic(fmt.Sprintf("%s: invariant request-ids-left: boot %d used every id", r.name, r.boot))
	}
	r.seq++
	return r.boot<<32 | uint64(r.seq)
}
