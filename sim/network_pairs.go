package sim

import "fmt"

// pairState is the network's state of one ordered pair of nodes: the three
// things that can differ from a fresh link's. The zero state is the default
// link, not cut, nothing in flight.
type pairState struct {
	inFlight int32  // messages queued on the link and not yet delivered or dropped
	link     uint16 // index into Network.links; 0 is the default link
	blocked  bool   // a partition cuts the link
}

// pairSlot is one slot of the sparse table: a pair and its state.
type pairSlot struct {
	key uint64 // pairKey(from, to); 0 marks an empty slot
	pairState
}

// pairTable holds the per-pair state of the network. A small world keeps
// every pair in a dense table (nodes² states of 8 bytes, at most 128 KB):
// its nodes usually all talk to each other, and the dense table is the
// fastest and smallest then. A larger world keeps only the pairs that have
// ever left the zero state (a message sent, a link set, a cut) in a sparse
// table, so its memory follows the pairs the run uses and not the square of
// its node count: the 502-node herd uses about 4,100 of its 252,004 pairs.
//
// The sparse table is open addressing with linear probing and a
// multiplicative (Fibonacci) hash, 16 bytes per slot, at most 3/4 of the
// slots used. Entries are never removed: a pair back in the zero state
// keeps its slot, so the hot path (send, deliver) does not churn, and the
// table never shrinks. Lookups never depend on the order of the slots, and
// the only walks over them (resetLinks, heal) write the same value to every
// slot, so the table is deterministic whatever its layout.
type pairTable struct {
	nodes int         // node ids are below nodes
	dense []pairState // while nodes <= denseMax: pair from -> to at from*nodes+to
	slots []pairSlot  // once nodes > denseMax: length a power of two
	used  int         // slots holding a pair
	shift uint8       // 64 - log2(len(slots)): a hash's top bits index the table
}

// denseMax is the largest world that keeps a dense table: 128² states of
// 8 bytes are 128 KB. Beyond it the table turns sparse for good.
const denseMax = 128

// pairTableMin is the sparse table's first size: 16 slots, 256 bytes.
const pairTableMin = 16

// fibonacci is 2^64 divided by the golden ratio, the multiplier of
// Fibonacci hashing: it spreads keys that differ only in a few bits over
// the whole table.
const fibonacci = 0x9E3779B97F4A7C15

// pairKey encodes the ordered pair from -> to for the sparse table. The +1
// keeps every key non-zero, so that 0 can mark an empty slot; node ids are
// non-negative int32, so the key never wraps.
func pairKey(from, to NodeID) uint64 {
	return (uint64(uint32(from))<<32 | uint64(uint32(to))) + 1
}

// resize sizes the table for a world of nodes nodes (never fewer than
// before), keeping every pair's state.
func (t *pairTable) resize(nodes int) {
	switch {
	case nodes <= denseMax:
		dense := make([]pairState, nodes*nodes)
		for a := range t.nodes {
			copy(dense[a*nodes:], t.dense[a*t.nodes:(a+1)*t.nodes])
		}
		t.dense = dense
	case t.nodes <= denseMax: // turning sparse
		t.slots = make([]pairSlot, pairTableMin)
		t.used, t.shift = 0, 64-4 // log2(pairTableMin)
		for i, s := range t.dense {
			if s != (pairState{}) {
				t.insert(pairKey(NodeID(i/t.nodes), NodeID(i%t.nodes))).pairState = s
			}
		}
		t.dense = nil
	}
	t.nodes = nodes
}

// unknown panics: the pair from -> to names a node that does not exist,
// which would alias another pair in the dense table.
func (t *pairTable) unknown(from, to NodeID) {
	panic(fmt.Sprintf("sim: invariant known-node: link %d -> %d names a node that does not exist (%d nodes)", from, to, t.nodes))
}

// get returns the state of the pair from -> to, adding it in the zero state
// if the sparse table does not hold it. The pointer is valid until the next
// get, setLink, setBlocked or resize.
func (t *pairTable) get(from, to NodeID) *pairState {
	if uint(from) >= uint(t.nodes) || uint(to) >= uint(t.nodes) {
		t.unknown(from, to)
	}
	if t.nodes <= denseMax {
		return &t.dense[int(from)*t.nodes+int(to)]
	}
	return t.getSparse(pairKey(from, to))
}

// getSparse is get's sparse half.
func (t *pairTable) getSparse(key uint64) *pairState {
	if s := t.lookup(key); s.key == key {
		return &s.pairState
	}
	return &t.insert(key).pairState
}

// find returns the state of the pair from -> to, or nil if it is in the
// zero state and the sparse table does not hold it. The pointer is valid
// until the next get, setLink, setBlocked or resize.
func (t *pairTable) find(from, to NodeID) *pairState {
	if uint(from) >= uint(t.nodes) || uint(to) >= uint(t.nodes) {
		t.unknown(from, to)
	}
	if t.nodes <= denseMax {
		return &t.dense[int(from)*t.nodes+int(to)]
	}
	return t.findSparse(pairKey(from, to))
}

// findSparse is find's sparse half.
func (t *pairTable) findSparse(key uint64) *pairState {
	if s := t.lookup(key); s.key == key {
		return &s.pairState
	}
	return nil
}

// lookup returns the sparse slot that holds key, or the empty slot where it
// would go.
func (t *pairTable) lookup(key uint64) *pairSlot {
	mask := len(t.slots) - 1
	for i := int(key * fibonacci >> t.shift); ; i = (i + 1) & mask {
		if s := &t.slots[i&mask]; s.key == key || s.key == 0 {
			return s
		}
	}
}

// insert adds key, which the sparse table does not hold, in the zero
// state, growing the table first if it would be more than 3/4 full.
func (t *pairTable) insert(key uint64) *pairSlot {
	if 4*(t.used+1) > 3*len(t.slots) {
		old := t.slots
		t.slots = make([]pairSlot, 2*len(old))
		t.shift--
		for _, s := range old {
			if s.key != 0 {
				*t.lookup(s.key) = s
			}
		}
	}
	t.used++
	s := t.lookup(key)
	s.key = key
	return s
}

// setLink gives the pair from -> to link configuration idx. A pair the
// sparse table does not hold already has the default link, so setting it to
// the default adds nothing.
func (t *pairTable) setLink(from, to NodeID, idx uint16) {
	if idx == 0 {
		if s := t.find(from, to); s != nil {
			s.link = 0
		}
		return
	}
	t.get(from, to).link = idx
}

// setBlocked cuts or restores the pair from -> to. A pair the sparse table
// does not hold is already uncut, so restoring it adds nothing.
func (t *pairTable) setBlocked(from, to NodeID, cut bool) {
	if !cut {
		if s := t.find(from, to); s != nil {
			s.blocked = false
		}
		return
	}
	t.get(from, to).blocked = true
}

// blocked reports whether a partition cuts the pair from -> to.
func (t *pairTable) blocked(from, to NodeID) bool {
	s := t.find(from, to)
	return s != nil && s.blocked
}

// resetLinks returns every pair to the default link.
func (t *pairTable) resetLinks() {
	for i := range t.dense {
		t.dense[i].link = 0
	}
	for i := range t.slots {
		t.slots[i].link = 0
	}
}

// heal restores every cut pair.
func (t *pairTable) heal() {
	for i := range t.dense {
		t.dense[i].blocked = false
	}
	for i := range t.slots {
		t.slots[i].blocked = false
	}
}
