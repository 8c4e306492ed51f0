package scenarios

import (
	"encoding/binary"
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// The recorder keeps each message it will build a payload from (the fields
// of a lease.Message that leasewire.Payload reads) encoded in a few bytes
// without a pointer: its kind and error, a bitmap of the fields it has, and
// those fields as varints, its strings interned (msgTable.strs) and its
// value and state copied into one text buffer (msgTable.text). Most of a
// message's fields are zero, so a recorded message takes about 15 bytes
// rather than a struct's 80: the tables a large run holds when its history
// is built (and which raise its peak memory) are that much smaller, and the
// garbage collector never scans them.

// The fields a recorded message has, in the order they are encoded: its
// interned strings first, so that a message's head (its kind, error and
// resource: msgTable.head) is read without passing over the rest.
const (
	hasResource = 1 << iota
	hasKey
	hasPrefix
	hasHolder // a request's Client, a reply's Holder
	hasToken
	hasStateToken
	hasTTL
	hasClock
	hasRemaining
	hasText // offset in msgTable.text, value length, state length
	hasKeys // 1 + its index in msgTable.keys
)

// msgChunk holds up to chunkSize recorded messages, encoded one after the
// other in data; end[i] is where message i's encoding ends.
type msgChunk struct {
	end  [chunkSize]uint16 // a message takes at most maxMsgLen bytes, so a chunk's data fits
	data []byte
}

// maxMsgLen bounds a message's encoding: kind, error, a two-byte bitmap and
// eleven fields of at most ten bytes.
const maxMsgLen = 4 + 11*binary.MaxVarintLen64

// msgTable holds the recorded messages.
type msgTable struct {
	chunks []*msgChunk
	n      int32 // messages recorded
	text   []byte
	strs   strTable
	// keys are the rare messages' registrations (a lease's, a list's), as
	// the history's payloads name them, carved from kvChunk (carveKVs).
	keys    [][]history.KV
	kvChunk []history.KV
}

// kvChunkLen is how many registrations a chunk of msgTable.kvChunk holds.
const kvChunkLen = 256

// carveKVs returns n zero registrations no other message has: the next n
// of the current chunk, or of a new one. A chunk is never handed on to
// another run (handOnWhenUnreachable takes the chunks and the text only):
// the history's payloads share these slices.
func (t *msgTable) carveKVs(n int) []history.KV {
	if cap(t.kvChunk)-len(t.kvChunk) < n {
		t.kvChunk = make([]history.KV, 0, max(n, kvChunkLen))
	}
	at := len(t.kvChunk)
	t.kvChunk = t.kvChunk[:at+n]
	return t.kvChunk[at : at+n : at+n]
}

// add keeps m and returns its index.
func (t *msgTable) add(m *lease.Message) int32 {
	c := int(t.n / chunkSize)
	if c == len(t.chunks) {
		t.chunks = append(t.chunks, &msgChunk{data: make([]byte, 0, chunkSize*16)})
	} else if t.n%chunkSize == 0 { // a chunk a finished run handed on (recorder_scratch.go)
		t.chunks[c].data = t.chunks[c].data[:0]
	}
	ch := t.chunks[c]
	holder := m.Holder
	if m.Kind.IsRequest() {
		holder = m.Client
	}
	resource, key, prefix, holderID := t.strs.id(m.Resource), t.strs.id(m.Key), t.strs.id(m.Prefix), t.strs.id(string(holder))
	fields := has(m.Token != 0, hasToken) | has(m.CheckpointToken != 0, hasStateToken) | has(m.TTL != 0, hasTTL) |
		has(m.GrantorTime != 0, hasClock) | has(m.Remaining != 0, hasRemaining) |
		has(len(m.Value)+len(m.State) > 0, hasText) | has(resource != 0, hasResource) | has(key != 0, hasKey) |
		has(prefix != 0, hasPrefix) | has(holderID != 0, hasHolder) | has(len(m.Keys) > 0, hasKeys)
	n := len(ch.data)
	if cap(ch.data)-n < maxMsgLen {
		ch.data = slices.Grow(ch.data, maxMsgLen)
	}
	b := ch.data[n : n+maxMsgLen]
	b[0], b[1] = byte(m.Kind), byte(m.Err)
	w := 2 + binary.PutUvarint(b[2:], fields)
	for _, id := range [...]int32{resource, key, prefix, holderID} {
		if id != 0 {
			w += binary.PutUvarint(b[w:], uint64(id))
		}
	}
	if fields&hasToken != 0 {
		w += binary.PutUvarint(b[w:], m.Token)
	}
	if fields&hasStateToken != 0 {
		w += binary.PutUvarint(b[w:], m.CheckpointToken)
	}
	if fields&hasTTL != 0 {
		w += binary.PutVarint(b[w:], int64(m.TTL))
	}
	if fields&hasClock != 0 {
		w += binary.PutVarint(b[w:], int64(m.GrantorTime))
	}
	if fields&hasRemaining != 0 {
		w += binary.PutVarint(b[w:], int64(m.Remaining))
	}
	if fields&hasText != 0 {
		w += binary.PutUvarint(b[w:], uint64(len(t.text)))
		w += binary.PutUvarint(b[w:], uint64(len(m.Value)))
		w += binary.PutUvarint(b[w:], uint64(len(m.State)))
		t.text = append(doubled(t.text), m.Value...)
		t.text = append(t.text, m.State...)
	}
	if fields&hasKeys != 0 {
		kvs := t.carveKVs(len(m.Keys))
		for i, kv := range m.Keys {
			kvs[i] = history.KV{Key: kv.Key, Value: t.strs.bytesStr(kv.Value)}
		}
		t.keys = append(t.keys, kvs)
		w += binary.PutUvarint(b[w:], uint64(len(t.keys)))
	}
	ch.data = ch.data[:n+w]
	ch.end[t.n%chunkSize] = uint16(n + w)
	t.n++
	return t.n - 1
}

// has returns bit if cond holds, else 0.
func has(cond bool, bit uint64) uint64 {
	if cond {
		return bit
	}
	return 0
}

// msgReader reads a recorded message's fields in the order add wrote them.
type msgReader []byte

func (r *msgReader) uvarint() uint64 {
	if b := *r; b[0] < 0x80 { // most are one byte: interned ids, lengths, small tokens
		*r = b[1:]
		return uint64(b[0])
	}
	v, n := binary.Uvarint(*r)
	*r = (*r)[n:]
	return v
}

func (r *msgReader) varint() int64 {
	v, n := binary.Varint(*r)
	*r = (*r)[n:]
	return v
}

// payloadInto sets *p, a zero payload, to message i as the history's
// payload (leasewire.Payload, which TestMsgTablePayloadsAreTheMessages
// holds it to), its value and state cut from text (the table's text as a
// string). It decodes straight into p: a run's history is read from the
// table by every pass that loads its operations.
func (t *msgTable) payloadInto(p *history.Payload, i int32, text string) {
	var r msgReader
	var fields uint64
	p.Kind, p.Resource, p.Err, p.OK, r, fields = t.decodeHead(i)
	if fields&hasKey != 0 {
		p.Key = t.strs.strs[r.uvarint()]
	}
	if fields&hasPrefix != 0 {
		p.Prefix = t.strs.strs[r.uvarint()]
	}
	if fields&hasHolder != 0 { // a request's Client, a reply's Holder: the payload's Holder either way
		p.Holder = t.strs.strs[r.uvarint()]
	}
	if fields&hasToken != 0 {
		p.Token = r.uvarint()
	}
	if fields&hasStateToken != 0 {
		p.StateToken = r.uvarint()
	}
	if fields&hasTTL != 0 {
		p.TTL = time.Duration(r.varint())
	}
	if fields&hasClock != 0 {
		p.Clock = time.Duration(r.varint())
	}
	if fields&hasRemaining != 0 {
		p.Remaining = time.Duration(r.varint())
	}
	if fields&hasText != 0 {
		at, nv, ns := int(r.uvarint()), int(r.uvarint()), int(r.uvarint())
		p.Value, p.State = text[at:at+nv], text[at+nv:at+nv+ns]
	}
	if fields&hasKeys != 0 {
		p.Keys = t.keys[r.uvarint()-1] // shared by every payload built from the message: readers only read
	}
}

// head returns message i's kind, resource, error and OK, as payloadInto
// sets them (the history's OpHead), without reading the rest.
func (t *msgTable) head(i int32) (kind, resource, err string, ok bool) {
	kind, resource, err, ok, _, _ = t.decodeHead(i)
	return kind, resource, err, ok
}

// decodeHead returns message i's kind, resource, error and OK, and a reader
// of its fields after its resource, and its bitmap of fields.
func (t *msgTable) decodeHead(i int32) (kind, resource, err string, ok bool, r msgReader, fields uint64) {
	ch, k := t.chunks[i/chunkSize], i%chunkSize
	begin := 0
	if k > 0 {
		begin = int(ch.end[k-1])
	}
	enc := ch.data[begin:ch.end[k]]
	mk, code := lease.Kind(enc[0]), lease.ErrCode(enc[1])
	kind = mk.String()
	if !mk.IsRequest() {
		ok = code == lease.CodeOK
	}
	if code != lease.CodeOK {
		err = code.String()
	}
	r = msgReader(enc[2:])
	if fields = r.uvarint(); fields&hasResource != 0 {
		resource = t.strs.strs[r.uvarint()]
	}
	return kind, resource, err, ok, r, fields
}

// strTable interns strings: each distinct string once, by a small integer.
// The empty string is 0.
type strTable struct {
	strs []string
	ids  map[string]int32
	// recent remembers the ids last interned, by a slot that the string's
	// length and last two bytes choose, so that most strings are found by
	// one comparison (of the same pointer, mostly) instead of a hash. A
	// swarm run's 28 names (lock, result, x, h1-h3, w1-w2, t1-t20) take a
	// slot each: with a slot by length and last byte, w2 and x shared one
	// and a fifth of the lookups missed it.
	recent [128]int32
}

// id returns s's id, interning it first if it is new.
func (t *strTable) id(s string) int32 {
	if s == "" {
		return 0
	}
	if t.strs == nil {
		t.strs, t.ids = []string{""}, make(map[string]int32)
	}
	h := len(s)
	if len(s) > 1 {
		h = h*31 + int(s[len(s)-2])
	}
	slot := (h*31 + int(s[len(s)-1])) & (len(t.recent) - 1)
	if i := t.recent[slot]; t.strs[i] == s {
		return i
	}
	i, ok := t.ids[s]
	if !ok {
		i = int32(len(t.strs))
		t.strs = append(t.strs, s)
		t.ids[s] = i
	}
	t.recent[slot] = i
	return i
}

// bytesStr returns b as a string, interned: a value recorded again and
// again (an owner's name) is converted once.
func (t *strTable) bytesStr(b []byte) string { return t.strs[t.idBytes(b)] }

// idBytes is id(string(b)), which converts b only when it is new.
func (t *strTable) idBytes(b []byte) int32 {
	if len(b) == 0 {
		return 0
	}
	if i, ok := t.ids[string(b)]; ok { // the conversion of a map key allocates nothing
		return i
	}
	return t.id(string(b))
}

// str returns the string with id i (0 is "").
func (t *strTable) str(i int32) string {
	if i == 0 {
		return ""
	}
	return t.strs[i]
}
