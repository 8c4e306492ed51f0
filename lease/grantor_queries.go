package lease

import (
	"slices"
	"strings"
)

// checkpointReq stores m.State if m comes from the current, unexpired
// holder; anything else is fenced. It returns false, replying nothing, if
// the state could not be made durable.
func (g *grantor) checkpointReq(m Message) (Message, bool) {
	r := m.reply()
	if len(m.State) > MaxStateBytes {
		r.Err = CodeBadRequest
		return r, true
	}
	l, err := g.held(m)
	if err != nil {
		r.Err = CodeFenced
		return r, true
	}
	r.Token = l.token
	r.CheckpointToken = l.token
	if m.ReqID != 0 && m.ReqID <= l.ckptReqID {
		// An older request of this holder, overtaken by a newer accepted
		// one: it is linearised before that one, so storing nothing is
		// the same as storing it and overwriting it at once.
		return r, true
	}
	if err := g.putCheckpoint(l.resource, l.token, m.State); err != nil {
		return Message{}, false
	}
	l.ckptReqID = m.ReqID
	return r, true
}

// readCheckpoint returns the latest accepted checkpoint.
func (g *grantor) readCheckpoint(m Message) Message {
	r := m.reply()
	state, token := g.checkpoint(m.Resource)
	r.State = state // stored values and messages are never modified
	r.CheckpointToken = token
	return r
}

// query reports the holder, token and remaining TTL of a live lease.
func (g *grantor) query(m Message) Message {
	r := m.reply()
	l := g.live(m.Resource)
	if l == nil || l.revoked {
		r.Err = CodeLeaseExpired
		return r
	}
	r.Holder = l.client
	r.Token = l.token
	r.TTL = l.ttl
	r.Remaining = g.remaining(l)
	return r
}

// list returns the keys of live leases that start with m.Prefix, sorted, at
// most MaxListKeys of them.
func (g *grantor) list(m Message) Message {
	r := m.reply()
	var keys []KV
	for _, res := range g.sortedResources() {
		l := g.live(res)
		if l == nil || l.revoked {
			continue
		}
		for _, kv := range l.keys {
			if strings.HasPrefix(kv.Key, m.Prefix) {
				keys = append(keys, kv)
			}
		}
	}
	keys = cloneKVs(keys)
	if len(keys) > MaxListKeys {
		keys = keys[:MaxListKeys]
	}
	r.Keys = keys
	return r
}

// sortedResources returns the resources with a lease record, sorted, so
// that iteration order never depends on the map.
func (g *grantor) sortedResources() []string {
	out := make([]string, 0, len(g.leases))
	for res := range g.leases { // order does not matter: sorted below
		out = append(out, res)
	}
	slices.Sort(out)
	return out
}
