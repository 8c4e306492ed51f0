package scenarios

import (
	"math"
	"math/bits"
	"time"
	"unsafe"
)

// callIndex finds the recorder's requests by key (opKey): open-addressing
// hash tables of indices into the requests themselves, which hold their
// keys. It has no pointers and finds or adds a request with one hash; a
// map would hash each key twice to add it, and hold a copy of every key.
//
// It is generational, so that a lookup costs the same in a large run as in
// a small one. Nearly every lookup is for a recent request (a reply is sent
// and delivered milliseconds after its request), or for a new one (each is
// looked up before it is added). In one table as large as the run, each of
// them was a random probe into megabytes, a cache miss, and the table was
// rehashed from its own slots (more misses) each time it doubled. So the
// newest requests are in two small tables (young, which stays in cache):
// the current one takes new requests, the previous one holds the youngCap
// before them. When the current one is full, the previous one's requests
// become old, and it becomes the current one, cleared. Each table holds a
// range of request indices and every request is in exactly one, so the
// same requests are found, at the same indices, as by a single table.
//
// The old requests are looked for only if the key lies within the bounds
// of its client's old keys (request ids and sentAt): a client's request
// ids and clock go forward, so a new request (even from a client whose
// clock was stepped back), or a reply to a young one, never looks there; a
// late reply to an old request does. Only then are they indexed,
// in a table of their own (old), in the order of their indices (a
// sequential read of the requests), so a run whose every reply comes in
// time never builds it.
//
// A young slot holds the request's index from its table's first request,
// and bits of the key's hash that its position does not give (a tag): a
// probe reads the request only when the tag matches, nearly always the
// request it looks for.
type callIndex struct {
	young    []uint32 // two tables of youngSlots slots: tag | 1 + an index from the table's first request; 0 is an empty slot
	cur      int      // the young table (0 or 1) that takes new requests: it holds [curFrom, n)
	curFrom  int32    // the first request in the current young table
	prevFrom int32    // the first request in the previous young table, which holds [prevFrom, curFrom); [0, prevFrom) are old
	n        int32    // requests indexed
	tag      uint32   // the tag of the key reserve was last given, for fill
	bounds   []keyBounds
	old      []int32 // 1 + an index into the requests, 0 empty, for [0, built); its length a power of two, at least 2*built
	built    int32
	shift    uint // 64 - log2(len(old))
}

// keyBounds bounds the keys of a client's old requests (by client, in
// callIndex.bounds; a client past its end has none).
type keyBounds struct {
	minReq, maxReq   uint64
	minSent, maxSent time.Duration
}

// noKeys bounds no key.
var noKeys = keyBounds{minReq: math.MaxUint64, minSent: math.MaxInt64, maxSent: math.MinInt64}

// The young tables have 1<<youngBits slots each (16 KB) and hold up to
// youngCap requests, at most half full; a slot's low youngBits bits hold
// 1 + the request's index from its table's first, the rest its tag.
const (
	youngBits  = 12
	youngSlots = 1 << youngBits
	youngCap   = youngSlots / 2
	offMask    = youngSlots - 1
)

// hash mixes k's parts: a table of 1<<b slots takes its top b bits, a
// young slot's tag its low bits.
func hash(k opKey) uint64 {
	hi, lo := bits.Mul64(k.reqID^bits.RotateLeft64(uint64(k.sentAt), 32)^uint64(k.client)<<48, 0x9e3779b97f4a7c15)
	return hi ^ lo
}

// youngTable returns young table t (0 or 1).
func (x *callIndex) youngTable(t int) []uint32 {
	return x.young[t*youngSlots : (t+1)*youngSlots]
}

// probeYoung looks for k, whose hash is h, in young table t, whose first
// request is from: it returns k's request (found), or the empty slot where
// k belongs.
func (x *callIndex) probeYoung(t int, from int32, h uint64, reqs *chunked[call], k opKey) (slot int, i int32, found bool) {
	table, tag := x.youngTable(t), uint32(h)&^offMask
	for s := int(h >> (64 - youngBits)); ; s = (s + 1) & offMask {
		v := table[s]
		if v == 0 {
			return s, 0, false
		}
		if v&^offMask == tag {
			i := from + int32(v&offMask) - 1
			if matches(reqs.at(i), k) {
				return s, i, true
			}
		}
	}
}

// find returns the index of k, whose hash is h, (found) or else the empty
// slot of the current young table where k belongs.
func (x *callIndex) find(reqs *chunked[call], k opKey, h uint64) (slot int, i int32, found bool) {
	if slot, i, found = x.probeYoung(x.cur, x.curFrom, h, reqs, k); found {
		return slot, i, true
	}
	if x.prevFrom < x.curFrom {
		if _, i, ok := x.probeYoung(1-x.cur, x.prevFrom, h, reqs, k); ok {
			return slot, i, true
		}
	}
	if c := int(k.client); c >= 0 && c < len(x.bounds) {
		if b := &x.bounds[c]; k.reqID >= b.minReq && k.reqID <= b.maxReq && k.sentAt >= b.minSent && k.sentAt <= b.maxSent {
			x.build(reqs)
			mask := len(x.old) - 1
			for s := int(h >> x.shift); x.old[s] != 0; s = (s + 1) & mask {
				if i := x.old[s] - 1; matches(reqs.at(i), k) {
					return slot, i, true
				}
			}
		}
	}
	return slot, 0, false
}

// matches reports whether c is the request with key k.
func matches(c *call, k opKey) bool {
	return c.reqID == k.reqID && c.sentAt == k.sentAt && c.client == k.client
}

// lookup returns the index of k's request.
func (x *callIndex) lookup(reqs *chunked[call], k opKey) (int32, bool) {
	if x.n == 0 {
		return 0, false
	}
	_, i, ok := x.find(reqs, k, hash(k))
	return i, ok
}

// reserve reports whether a request with key k is indexed and, if not,
// returns the slot where fill indexes it (valid until the next reserve).
func (x *callIndex) reserve(reqs *chunked[call], k opKey) (slot int, found bool) {
	if x.young == nil {
		x.young = make([]uint32, 2*youngSlots)
	}
	if x.n-x.curFrom == youngCap {
		x.age(reqs)
	}
	h := hash(k)
	x.tag = uint32(h) &^ offMask
	slot, _, found = x.find(reqs, k, h)
	return slot, found
}

// fill indexes request i, with the key reserve was given, at slot. The
// requests are indexed in the order of their indices, every one of them
// (the generations are ranges of indices): i is the number indexed so far.
func (x *callIndex) fill(slot int, i int32) {
	if i != x.n {
		panic("callIndex: requests indexed out of order")
	}
	x.youngTable(x.cur)[slot] = x.tag | uint32(i-x.curFrom+1)
	x.n++
}

// age makes the previous young table's requests old (their clients' key
// bounds take them in), clears it, and makes it the current one.
func (x *callIndex) age(reqs *chunked[call]) {
	for i := x.prevFrom; i < x.curFrom; i++ {
		c := reqs.at(i)
		for int(c.client) >= len(x.bounds) {
			x.bounds = append(x.bounds, noKeys)
		}
		b := &x.bounds[c.client]
		b.minReq, b.maxReq = min(b.minReq, c.reqID), max(b.maxReq, c.reqID)
		b.minSent, b.maxSent = min(b.minSent, c.sentAt), max(b.maxSent, c.sentAt)
	}
	clear(x.youngTable(1 - x.cur))
	x.cur = 1 - x.cur
	x.prevFrom, x.curFrom = x.curFrom, x.n
}

// build indexes the old requests not yet in the old table, in a larger
// table (all of them again) if it would be more than half full.
func (x *callIndex) build(reqs *chunked[call]) {
	if x.built == x.prevFrom {
		return
	}
	if size := len(x.old); 2*int(x.prevFrom) > size {
		size = max(size, 64)
		for 2*int(x.prevFrom) > size {
			size *= 2
		}
		x.old, x.shift, x.built = make([]int32, size), uint(64-bits.TrailingZeros(uint(size))), 0
	}
	mask := len(x.old) - 1
	for i := x.built; i < x.prevFrom; i++ {
		c := reqs.at(i)
		s := int(hash(opKey{client: c.client, reqID: c.reqID, sentAt: c.sentAt}) >> x.shift)
		for x.old[s] != 0 {
			s = (s + 1) & mask
		}
		x.old[s] = i + 1
	}
	x.built = x.prevFrom
}

// emptied returns an empty index with x's memory, cleared, for another run.
func (x *callIndex) emptied() callIndex {
	clear(x.young)
	if x.built > 0 {
		clear(x.old)
	}
	return callIndex{young: x.young, old: x.old, shift: x.shift, bounds: x.bounds[:0]}
}

// bytes returns the memory x holds.
func (x *callIndex) bytes() int {
	return 4*(cap(x.young)+cap(x.old)) + int(unsafe.Sizeof(keyBounds{}))*cap(x.bounds)
}
