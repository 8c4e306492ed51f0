package lease

import "strings"

// slabChunk is the size of the chunks a slab carves small values from.
const slabChunk = 512

// slab hands out byte slices carved from shared chunks, for values written
// once and never changed afterwards (a message's payload, a stored
// record), so that many small values cost one allocation per chunk rather
// than one each. Each value has its own bytes and a capacity of its
// length, so appending to it copies. A chunk is freed once no value carved
// from it is reachable: a value that lives long keeps at most one chunk
// alive with it. Values above a quarter of a chunk get their own
// allocation.
type slab struct {
	free []byte // the current chunk's unused tail
}

// alloc returns n zeroed bytes that no other value shares.
func (s *slab) alloc(n int) []byte {
	if n > slabChunk/4 {
		return make([]byte, n)
	}
	if len(s.free) < n || s.free == nil {
		s.free = make([]byte, slabChunk)
	}
	b := s.free[:n:n]
	s.free = s.free[n:]
	return b
}

// clone returns a copy of b, nil if b is nil, as slices.Clone does.
func (s *slab) clone(b []byte) []byte {
	if len(b) == 0 {
		return b[:0:0]
	}
	c := s.alloc(len(b))
	copy(c, b)
	return c
}

// stringSlab hands out strings carved from shared chunks, as slab does
// byte slices. It appends to a strings.Builder, whose String never copies
// and whose earlier strings stay unchanged as it grows.
type stringSlab struct {
	b strings.Builder
}

// concat returns the concatenation of parts.
func (s *stringSlab) concat(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n > slabChunk/4 {
		return strings.Join(parts, "")
	}
	if s.b.Cap()-s.b.Len() < n {
		s.b = strings.Builder{} // the full chunk stays with the strings carved from it
		s.b.Grow(slabChunk)
	}
	start := s.b.Len()
	for _, p := range parts {
		s.b.WriteString(p)
	}
	return s.b.String()[start:]
}
