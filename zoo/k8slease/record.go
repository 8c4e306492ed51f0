package k8slease

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// record is the spec of a coordination.k8s.io/v1 Lease, the object the
// candidates compete for. The API server stores it and never reads its
// times: they are the writer's own monotonic clock readings, meaningful
// only on the writer's node, and the other candidates use nothing of them
// but the fact that they changed.
type record struct {
	// HolderIdentity is the holder's address, "" when nobody holds the
	// lease (after a release). HolderIncarnation tells its lives apart:
	// together they are the identity client-go users build from a host
	// name and a fresh UUID per process, so a restarted holder is a new
	// candidate.
	HolderIdentity    string
	HolderIncarnation uint64
	// LeaseDuration is leaseDurationSeconds: how long the other
	// candidates wait, on their own clocks, without seeing the record
	// change before they may take it.
	LeaseDuration time.Duration
	// AcquireTime and RenewTime are the holder's readings when it took
	// the lease and when it last renewed it.
	AcquireTime, RenewTime time.Duration
	// LeaseTransitions counts the changes of holder; it is the fencing
	// token of the holder that wrote it.
	LeaseTransitions uint64
}

// heldBy reports whether the record names the holder identity (addr,
// incarnation).
func (r record) heldBy(addr string, incarnation uint64) bool {
	return r.HolderIdentity == addr && r.HolderIncarnation == incarnation
}

// times is the record's times as the cas-record payload carries them:
// "acquire=<ns> renew=<ns>".
func (r record) times() string {
	b := make([]byte, 0, 48)
	b = append(b, "acquire="...)
	b = strconv.AppendInt(b, int64(r.AcquireTime), 10)
	b = append(b, " renew="...)
	b = strconv.AppendInt(b, int64(r.RenewTime), 10)
	return string(b)
}

// digest folds the record's contents into words for a message digest.
func (r record) digest(words []uint64) []uint64 {
	return append(words, sim.DigestString(r.HolderIdentity), r.HolderIncarnation, uint64(r.LeaseDuration),
		uint64(r.AcquireTime), uint64(r.RenewTime), r.LeaseTransitions)
}

// storedRecord is a record with its resourceVersion, as the API server
// keeps it in its durable store.
type storedRecord struct {
	rec     record
	version uint64
}

// encode returns the stored record's bytes: the version, the numbers, and
// the holder identity last.
func (s storedRecord) encode() []byte {
	b := make([]byte, 0, 6*binary.MaxVarintLen64+len(s.rec.HolderIdentity))
	for _, v := range []uint64{s.version, s.rec.HolderIncarnation, uint64(s.rec.LeaseDuration),
		uint64(s.rec.AcquireTime), uint64(s.rec.RenewTime), s.rec.LeaseTransitions} {
		b = binary.AppendUvarint(b, v)
	}
	return append(b, s.rec.HolderIdentity...)
}

// decodeStored reads what encode wrote.
func decodeStored(b []byte) (storedRecord, error) {
	var v [6]uint64
	for i := range v {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return storedRecord{}, fmt.Errorf("stored record: field %d of %d: truncated or overlong varint", i+1, len(v))
		}
		v[i], b = x, b[n:]
	}
	return storedRecord{version: v[0], rec: record{HolderIncarnation: v[1], LeaseDuration: time.Duration(v[2]),
		AcquireTime: time.Duration(v[3]), RenewTime: time.Duration(v[4]), LeaseTransitions: v[5],
		HolderIdentity: string(b)}}, nil
}
