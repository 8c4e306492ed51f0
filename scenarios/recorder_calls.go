package scenarios

import "math/bits"

// callIndex finds the recorder's requests by key (opKey): an open-addressing
// hash table of indices into the requests themselves, which hold their
// keys. It has no pointers and finds or adds a request with one probe
// sequence; a map would hash each key twice to add it, and hold a copy of
// every key.
type callIndex struct {
	slots []int32 // 1 + an index into the requests; 0 is an empty slot. Its length is a power of two.
	shift uint    // 64 - log2(len(slots))
	n     int     // requests indexed
}

// hash returns k's home slot.
func (x *callIndex) hash(k opKey) int {
	h := k.reqID ^ bits.RotateLeft64(uint64(k.sentAt), 32) ^ uint64(k.client)<<48
	return int((h * 0x9e3779b97f4a7c15) >> x.shift)
}

// find returns the slot that holds k (found), or the empty slot where k
// belongs.
func (x *callIndex) find(reqs *chunked[call], k opKey) (slot int, found bool) {
	mask := len(x.slots) - 1
	for s := x.hash(k); ; s = (s + 1) & mask {
		i := x.slots[s]
		if i == 0 {
			return s, false
		}
		if c := reqs.at(i - 1); c.reqID == k.reqID && c.sentAt == k.sentAt && c.client == k.client {
			return s, true
		}
	}
}

// lookup returns the index of k's request.
func (x *callIndex) lookup(reqs *chunked[call], k opKey) (int32, bool) {
	if x.n == 0 {
		return 0, false
	}
	s, ok := x.find(reqs, k)
	return x.slots[s] - 1, ok
}

// reserve reports whether a request with key k is indexed and, if not,
// returns the slot where fill indexes it (valid until the next reserve).
func (x *callIndex) reserve(reqs *chunked[call], k opKey) (slot int, found bool) {
	if 2*(x.n+1) > len(x.slots) {
		x.grow(reqs)
	}
	return x.find(reqs, k)
}

// fill indexes request i, with the key reserve was given, at slot.
func (x *callIndex) fill(slot int, i int32) {
	x.slots[slot] = i + 1
	x.n++
}

// grow doubles the table (from 64 slots) and indexes every request again.
func (x *callIndex) grow(reqs *chunked[call]) {
	old := x.slots
	size := max(2*len(old), 64)
	x.slots, x.shift = make([]int32, size), uint(64-bits.TrailingZeros(uint(size)))
	mask := size - 1
	for _, i := range old {
		if i == 0 {
			continue
		}
		c := reqs.at(i - 1)
		s := x.hash(opKey{client: c.client, reqID: c.reqID, sentAt: c.sentAt})
		for x.slots[s] != 0 {
			s = (s + 1) & mask
		}
		x.slots[s] = i
	}
}
