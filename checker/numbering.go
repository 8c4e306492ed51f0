package checker

// numbering numbers keys (small structs of strings) in order of first
// appearance, as a map would, but most keys are found without hashing: a
// small cache of recent keys, by a slot the caller derives cheaply from the
// key (its strings' lengths and last bytes), finds them with one
// comparison, which is cheap when the strings share their bytes, as a
// recorded history's do (its names are cut from one buffer). A checker
// that numbers a key per operation spent more on hashing than on
// checking.
type numbering[K comparable] struct {
	ids    map[K]int32 // looked up, never iterated
	recent [64]recentKey[K]
}

// recentKey is a slot of numbering's cache.
type recentKey[K comparable] struct {
	key K
	id  int32 // 1 + the key's number; 0 for an empty slot
}

// id returns k's number, and whether k is new. hint chooses k's slot in the
// cache: equal keys must give equal hints.
func (n *numbering[K]) id(k K, hint int) (int32, bool) {
	slot := n.slot(hint)
	if slot.id > 0 && slot.key == k {
		return slot.id - 1, false
	}
	if n.ids == nil {
		n.ids = make(map[K]int32)
	}
	id, seen := n.ids[k]
	if !seen {
		id = int32(len(n.ids))
		n.ids[k] = id
	}
	slot.key, slot.id = k, id+1
	return id, !seen
}

// find returns k's number, if k was numbered.
func (n *numbering[K]) find(k K, hint int) (int32, bool) {
	slot := n.slot(hint)
	if slot.id > 0 && slot.key == k {
		return slot.id - 1, true
	}
	id, ok := n.ids[k]
	if ok {
		slot.key, slot.id = k, id+1
	}
	return id, ok
}

// slot returns the cache slot of a key with hint: the hint's bits mixed
// (Fibonacci hashing), so that keys whose hints differ in a few bits (names
// that differ in one digit) fall apart.
func (n *numbering[K]) slot(hint int) *recentKey[K] {
	return &n.recent[(uint64(hint)*0x9e3779b97f4a7c15)>>58] // the top 6 bits: 64 slots
}

// len returns how many keys were numbered.
func (n *numbering[K]) len() int { return len(n.ids) }

// strHint is a cheap hint for numbering from a string: its length and its
// last two bytes.
func strHint(s string) int {
	h := len(s) << 16
	if len(s) > 0 {
		h |= int(s[len(s)-1])
	}
	if len(s) > 1 {
		h |= int(s[len(s)-2]) << 8
	}
	return h
}
