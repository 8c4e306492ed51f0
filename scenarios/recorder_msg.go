package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
)

// msgRec is a message the recorder keeps until it builds the history: the
// fields of a lease.Message that its payload is made of (leasewire.Payload),
// without a pointer. Its strings are interned (msgTable.strs), and its
// value and state are copied into one text buffer (msgTable.text), so the
// garbage collector never scans a recorded message, and keeping one is a
// copy of 80 bytes.
type msgRec struct {
	token, stateToken     uint64
	ttl, clock, remaining time.Duration
	text                  int    // where its value, then its state, start in msgTable.text
	value, state          uint32 // their lengths
	resource, key, prefix int32  // interned
	holder                int32  // interned: a request's Client, a reply's Holder
	keys                  int32  // 1 + its index in msgTable.keys; 0 when it has none
	kind                  lease.Kind
	err                   lease.ErrCode
}

// msgTable holds the recorded messages.
type msgTable struct {
	msgs chunked[msgRec]
	text []byte
	strs strTable
	// keys are the rare messages' registrations (a lease's, a list's), kept
	// as sent: a message is immutable once sent.
	keys [][]lease.KV
}

// add keeps m and returns its index.
func (t *msgTable) add(m *lease.Message) int32 {
	rec := msgRec{token: m.Token, stateToken: m.CheckpointToken, ttl: m.TTL, clock: m.GrantorTime,
		remaining: m.Remaining, text: len(t.text), value: uint32(len(m.Value)), state: uint32(len(m.State)),
		resource: t.strs.id(m.Resource), key: t.strs.id(m.Key), prefix: t.strs.id(m.Prefix), kind: m.Kind, err: m.Err}
	if m.Kind.IsRequest() {
		rec.holder = t.strs.id(string(m.Client))
	} else {
		rec.holder = t.strs.id(string(m.Holder))
	}
	if len(m.Value)+len(m.State) > 0 {
		t.text = append(doubled(t.text), m.Value...)
		t.text = append(t.text, m.State...)
	}
	if len(m.Keys) > 0 {
		t.keys = append(t.keys, m.Keys)
		rec.keys = int32(len(t.keys))
	}
	return t.msgs.add(rec)
}

// payloadInto sets *p, a zero payload, to message i as the history's
// payload (leasewire.PayloadInto), its value and state cut from text (the
// table's text as a string).
func (t *msgTable) payloadInto(p *history.Payload, i int32, text string) {
	rec := t.msgs.at(i)
	m := lease.Message{Kind: rec.kind, Err: rec.err, Token: rec.token, CheckpointToken: rec.stateToken, TTL: rec.ttl,
		GrantorTime: rec.clock, Remaining: rec.remaining, Resource: t.strs.strs[rec.resource], Key: t.strs.strs[rec.key],
		Prefix: t.strs.strs[rec.prefix]}
	if m.Kind.IsRequest() {
		m.Client = lease.Addr(t.strs.strs[rec.holder])
	} else {
		m.Holder = lease.Addr(t.strs.strs[rec.holder])
	}
	if rec.keys > 0 {
		m.Keys = t.keys[rec.keys-1]
	}
	value := text[rec.text : rec.text+int(rec.value)]
	state := text[rec.text+int(rec.value) : rec.text+int(rec.value)+int(rec.state)]
	leasewire.PayloadInto(p, &m, value, state)
}

// strTable interns strings: each distinct string once, by a small integer.
// The empty string is 0.
type strTable struct {
	strs []string
	ids  map[string]int32
	// recent remembers the ids last interned, by a slot that the string's
	// length and last byte choose, so that most strings are found by one
	// comparison (of the same pointer, mostly) instead of a hash.
	recent [64]int32
}

// id returns s's id, interning it first if it is new.
func (t *strTable) id(s string) int32 {
	if s == "" {
		return 0
	}
	if t.strs == nil {
		t.strs, t.ids = []string{""}, make(map[string]int32)
	}
	slot := (len(s)*7 + int(s[len(s)-1])) & (len(t.recent) - 1)
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
