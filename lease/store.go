package lease

import "fmt"

// putSynced writes every pair and syncs. If Sync fails it puts the previous
// values back (buffered), so that nothing that may not be durable is read
// back and handed out as if it were.
func putSynced(s Storage, kvs ...KV) error {
	type previous struct {
		value []byte
		had   bool
	}
	var small [2]previous // the resource writes two pairs: no allocation
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
