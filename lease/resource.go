package lease

import (
	"encoding/binary"
	"fmt"
)

// Durable keys of the fenced resource.
const (
	keyHighestPrefix = "lease/resource/highest/" // + resource: highest accepted token
	keyValuePrefix   = "lease/resource/value/"   // + resource NUL key: the value last written
	keyTokenPrefix   = "lease/resource/token/"   // + resource NUL key: the token that wrote it
	keyEffectPrefix  = "lease/resource/effect/"  // + resource NUL id: count
)

// resource is the fenced store of package lease.
type resource struct {
	env Env
	// Storage keys, made once per resource (and key) rather than once per
	// request; looked up, never iterated.
	highestKeys map[string]string
	valueKeys   map[resourceKey]valueKeys
}

type resourceKey struct{ resource, key string }

// valueKeys are the storage keys of a key's value and of the token that
// wrote it.
type valueKeys struct{ value, token string }

// highestKey returns the storage key of resource's highest accepted token.
func (r *resource) highestKey(res string) string {
	k, ok := r.highestKeys[res]
	if !ok {
		k = keyHighestPrefix + res
		r.highestKeys[res] = k
	}
	return k
}

// keysOf returns the storage keys of key's value on resource and of its
// token.
func (r *resource) keysOf(res, key string) valueKeys {
	rk := resourceKey{res, key}
	k, ok := r.valueKeys[rk]
	if !ok {
		k = valueKeys{value: keyValuePrefix + res + "\x00" + key, token: keyTokenPrefix + res + "\x00" + key}
		r.valueKeys[rk] = k
	}
	return k
}

// NewResource boots a fenced resource on env. It keeps everything in
// env.Store, so it continues where it was after a restart.
func NewResource(env Env) (Resource, error) {
	if err := env.validate(); err != nil {
		return nil, fmt.Errorf("new resource: %w", err)
	}
	return &resource{env: env, highestKeys: make(map[string]string), valueKeys: make(map[resourceKey]valueKeys)}, nil
}

// Deliver handles Write, Read and Effect requests.
func (r *resource) Deliver(from Addr, m Message) {
	var reply Message
	var ok bool
	switch m.Kind {
	case KindWrite:
		reply, ok = r.write(m)
	case KindRead:
		reply, ok = r.read(m), true
	case KindEffect:
		reply, ok = r.effect(m)
	}
	if ok {
		r.env.send(from, reply)
	}
}

// write accepts m only if its token is at least the highest accepted for
// the resource. Check and write are one step, durable before the reply.
func (r *resource) write(m Message) (Message, bool) {
	reply := m.reply()
	hk := r.highestKey(m.Resource)
	highest := r.readUint(hk)
	if m.Token < highest {
		reply.Err = CodeFenced
		reply.Token = highest
		return reply, true
	}
	// The value is stored as the message carries it, with no copy: a
	// message's slices are never modified. The token it was written under
	// is also the resource's highest, one shared encoding (uint64Value).
	token := uint64Value(m.Token)
	k := r.keysOf(m.Resource, m.Key)
	err := putSynced(r.env.Store,
		KV{Key: hk, Value: token},
		KV{Key: k.token, Value: token},
		KV{Key: k.value, Value: m.Value})
	if err != nil {
		return Message{}, false // outcome unknown to the client, which times out
	}
	if highest := r.readUint(hk); highest != m.Token {
		violated("fenced-tokens-non-decreasing", "resource %q: accepted token %d, highest now %d", m.Resource, m.Token, highest)
	}
	reply.Token = m.Token
	return reply, true
}

// read returns the latest value of m.Key and the token that wrote it.
func (r *resource) read(m Message) Message {
	reply := m.reply()
	reply.Key = m.Key
	k := r.keysOf(m.Resource, m.Key)
	b, ok := r.env.Store.Get(k.value)
	if !ok {
		return reply
	}
	t, ok := r.env.Store.Get(k.token)
	if !ok || len(t) != 8 {
		violated("durable-value-format", "key %q: a value without its 8-byte token", k.value)
	}
	reply.Token = binary.BigEndian.Uint64(t)
	reply.Value = b[:len(b):len(b)] // stored values and messages are never modified
	return reply
}

// effect counts an unfenced side effect; it is always accepted.
func (r *resource) effect(m Message) (Message, bool) {
	reply := m.reply()
	reply.Key = m.Key
	key := effectKey(m.Resource, m.Key)
	if err := putSynced(r.env.Store, KV{Key: key, Value: uint64Value(r.readUint(key) + 1)}); err != nil {
		return Message{}, false
	}
	return reply, true
}

// Highest returns the highest token accepted for resource, 0 if none.
func (r *resource) Highest(res string) uint64 { return r.readUint(r.highestKey(res)) }

// Effects returns how many times side effect id was performed on resource.
func (r *resource) Effects(res, id string) int { return int(r.readUint(effectKey(res, id))) }

// effectKey returns the storage key of side effect id's count on resource.
// Effect ids are mostly unique, so it is not kept.
func effectKey(res, id string) string { return keyEffectPrefix + res + "\x00" + id }

// readUint reads an 8-byte counter, 0 if absent.
func (r *resource) readUint(key string) uint64 {
	b, ok := r.env.Store.Get(key)
	if !ok {
		return 0
	}
	if len(b) != 8 {
		violated("durable-counter-format", "key %q: %d bytes", key, len(b))
	}
	return binary.BigEndian.Uint64(b)
}
