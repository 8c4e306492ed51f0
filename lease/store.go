package lease

import (
	"encoding/binary"
	"fmt"
)

// putSynced writes every pair and syncs. If Sync fails it puts the previous
// values back (buffered), so that nothing that may not be durable is read
// back and handed out as if it were.
func putSynced(s Storage, kvs ...KV) error {
	type previous struct {
		value []byte
		had   bool
	}
	var small [3]previous // the resource writes three pairs: no allocation
	prev := small[:0]
	if len(kvs) > len(small) {
		prev = make([]previous, 0, len(kvs))
	}
	prev = prev[:len(kvs)]
	for i, kv := range kvs {
		prev[i].value, prev[i].had = s.Get(kv.Key)
		s.Put(kv.Key, kv.Value)
	}
	err := s.Sync()
	if err == nil {
		return nil
	}
	for i := len(kvs) - 1; i >= 0; i-- {
		if prev[i].had {
			s.Put(kvs[i].Key, prev[i].value)
		} else {
			s.Delete(kvs[i].Key)
		}
	}
	return fmt.Errorf("sync: %w", err)
}

// smallValues holds the 8-byte big-endian encodings of 0..255, which
// uint64Value hands out shared.
var smallValues = func() (b [256 * 8]byte) {
	for v := range 256 {
		binary.BigEndian.PutUint64(b[v*8:], uint64(v))
	}
	return b
}()

// uint64Value returns v as an 8-byte big-endian value to Put. Counters and
// tokens are mostly small, and a stored value is never modified (see
// Storage), so those below 256 share one table instead of allocating.
func uint64Value(v uint64) []byte {
	if v < 256 {
		return smallValues[v*8 : v*8+8 : v*8+8]
	}
	return binary.BigEndian.AppendUint64(nil, v)
}
