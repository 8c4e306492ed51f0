package lease

import "math"

// acquire grants a lease, re-grants it to its holder (acting as a renewal
// with the same token), or says why not. It returns false, replying nothing,
// if the new token could not be made durable.
func (g *grantor) acquire(m Message) (Message, bool) {
	r := m.reply()
	switch {
	case len(m.Keys) > MaxKeysPerLease:
		r.Err = CodeBadRequest
		return r, true
	case m.TTL < g.cfg.TTLMin || m.TTL > g.cfg.TTLMax:
		r.Err = CodeTTLOutOfRange
		return r, true
	case g.env.now() < g.graceUntil:
		r.Err = CodeGrace
		r.Remaining = g.graceUntil - g.env.now()
		return r, true
	}
	l := g.live(m.Resource)
	if l == nil {
		return g.grant(m)
	}
	if l.client != m.Client || l.revoked {
		r.Err = CodeHeld
		r.Holder = l.client
		r.Remaining = g.remaining(l)
		return r, true
	}
	if Incarnation(m.ReqID) > Incarnation(l.lastReqID) {
		// The holder restarted, and the incarnation that held this lease
		// is gone. The new one gets a new token at once, so that whatever
		// the old one left in flight is fenced.
		g.remove(l)
		return g.grant(m)
	}
	g.extend(l, m.TTL)
	l.keys = cloneKVs(m.Keys)
	l.lastReqID = max(l.lastReqID, m.ReqID)
	return g.granted(r, l), true
}

// grant issues the next token on a free resource. The token is durable
// before the reply that carries it exists.
func (g *grantor) grant(m Message) (Message, bool) {
	r := m.reply()
	last := g.counter(m.Resource)
	if last == math.MaxUint64 {
		r.Err = CodeTokenExhausted
		return r, true
	}
	token := last + 1
	if err := g.putCounter(m.Resource, token); err != nil {
		return Message{}, false // the client times out and retries
	}
	l := &leaseState{
		resource:  m.Resource,
		client:    m.Client,
		token:     token,
		ttl:       m.TTL,
		expiresAt: g.env.now() + g.cfg.GrantorHold(m.TTL),
		keys:      cloneKVs(m.Keys),
		lastReqID: m.ReqID,
	}
	g.start(l)
	return g.granted(r, l), true
}

// granted fills a successful acquire reply, handing over the latest
// accepted checkpoint.
func (g *grantor) granted(r Message, l *leaseState) Message {
	state, ckptToken := g.checkpoint(l.resource)
	r.Token = l.token
	r.TTL = l.ttl
	r.Holder = l.client
	r.Remaining = g.remaining(l)
	r.State = state // stored values and messages are never modified
	r.CheckpointToken = ckptToken
	return r
}

// renew extends the lease with m.Token.
func (g *grantor) renew(m Message) Message {
	r := m.reply()
	l, err := g.held(m)
	if err != nil {
		r.Err = CodeOf(err)
		return r
	}
	g.extend(l, l.ttl)
	l.lastReqID = max(l.lastReqID, m.ReqID)
	r.Token = l.token
	r.TTL = l.ttl
	r.Remaining = g.remaining(l)
	return r
}

// release ends the lease with m.Token and removes its keys. A release that
// was overtaken by a later acquire or renewal of the same holder (a smaller
// ReqID) is stale: the holder released, then acquired the same lease again
// while the release was in flight, and believes it holds the lease now.
func (g *grantor) release(m Message) Message {
	r := m.reply()
	l, err := g.held(m)
	if err == nil && m.ReqID != 0 && m.ReqID < l.lastReqID {
		err = ErrFenced
	}
	if err != nil {
		r.Err = CodeOf(err)
		return r
	}
	g.remove(l)
	r.Token = l.token
	return r
}

// revoke takes the holder's rights away at once. The lease keeps blocking new
// grants until its old expiry, because its holder may still believe it.
func (g *grantor) revoke(m Message) Message {
	r := m.reply()
	l := g.live(m.Resource)
	if l == nil {
		r.Err = CodeLeaseExpired
		return r
	}
	if !l.revoked {
		l.revoked = true
		l.keys = nil
		g.env.observe(Event{Kind: EventRevoked, Resource: l.resource, Token: l.token})
	}
	r.Holder = l.client
	r.Token = l.token
	r.Remaining = g.remaining(l)
	return r
}

// held returns the lease m acts on if m.Client holds it with m.Token:
// ErrFenced if a newer token was issued, ErrNotHolder if another client
// names the token, ErrLeaseExpired otherwise (expired, released, revoked).
func (g *grantor) held(m Message) (*leaseState, error) {
	l := g.live(m.Resource)
	switch {
	case l != nil && l.token == m.Token && !l.revoked:
		if l.client != m.Client {
			return nil, ErrNotHolder
		}
		return l, nil
	case m.Token < g.counter(m.Resource):
		return nil, ErrFenced
	}
	return nil, ErrLeaseExpired
}
