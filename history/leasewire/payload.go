package leasewire

import (
	"fmt"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// Payload returns m as the schema's payload. A request's Holder is the
// client it acts for (m.Client); a reply's is the current holder it names
// (m.Holder). A successful reply has OK set and no Err.
func Payload(m lease.Message) history.Payload {
	var p history.Payload
	PayloadInto(&p, &m, string(m.Value), string(m.State))
	return p
}

// PayloadInto sets *p, a zero payload, to m's payload (Payload), with
// value and state standing for m.Value and m.State, which it does not
// read: for a producer that keeps them as text already. It writes only
// the fields that are not zero, so that a large table of operations can be
// built in place at little cost.
func PayloadInto(p *history.Payload, m *lease.Message, value, state string) {
	p.Kind = m.Kind.String()
	holder := m.Client
	if !m.Kind.IsRequest() {
		holder = m.Holder
		p.OK = m.Err == lease.CodeOK
	}
	if m.Err != lease.CodeOK {
		p.Err = m.Err.String()
	}
	setString(&p.Resource, m.Resource)
	setString(&p.Key, m.Key)
	setString(&p.Value, value)
	setString(&p.Holder, string(holder))
	setString(&p.State, state)
	setString(&p.Prefix, m.Prefix)
	p.Token, p.TTL, p.Clock, p.Remaining, p.StateToken = m.Token, m.TTL, m.GrantorTime, m.Remaining, m.CheckpointToken
	for _, kv := range m.Keys {
		p.Keys = append(p.Keys, history.KV{Key: kv.Key, Value: string(kv.Value)})
	}
}

// setString sets *dst to s unless s is empty.
func setString(dst *string, s string) {
	if s != "" {
		*dst = s
	}
}

// FieldError is a payload field that leasesim's protocol cannot read.
type FieldError struct {
	// Field is the payload's wire field ("kind", "err", "lease").
	Field string
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %v", e.Field, e.Err) }

// Unwrap returns what is wrong.
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Message returns p as a lease.Message, the inverse of Payload (ReqID,
// SentAt and a reply's Client are the operation's: see Op). A field
// leasesim's protocol does not have (an etcd lease id, a revision, a
// version, a holder incarnation), an unknown kind or error code, or an
// OK that contradicts the error is a *FieldError.
func Message(p history.Payload) (lease.Message, error) {
	var m lease.Message
	if err := m.Kind.UnmarshalText([]byte(p.Kind)); err != nil || m.Kind == lease.KindNone {
		return m, fieldErr("kind", "%q is not a kind of leasesim's protocol (acquire, acquire_reply, renew, …)", p.Kind)
	}
	switch {
	case p.Lease != 0:
		return m, fieldErr("lease", "leasesim's protocol has no lease ids")
	case p.Revision != 0:
		return m, fieldErr("revision", "leasesim's protocol has no revisions")
	case p.Version != "":
		return m, fieldErr("version", "leasesim's protocol has no versions")
	case p.HolderIncarnation != 0:
		return m, fieldErr("holder_incarnation", "leasesim's protocol carries the incarnation in the operation, not the payload")
	case p.OK && p.Err != "":
		return m, fieldErr("ok", "true, but err is %q", p.Err)
	case p.OK && m.Kind.IsRequest():
		return m, fieldErr("ok", "a request has no outcome")
	}
	if p.Err != "" {
		if err := m.Err.UnmarshalText([]byte(p.Err)); err != nil || m.Err == lease.CodeOK {
			return m, fieldErr("err", "%q is not an error code of leasesim's protocol (fenced, held, lease_expired, …)", p.Err)
		}
	}
	m.Resource, m.Key, m.Value, m.Token, m.TTL = p.Resource, p.Key, bytesOf(p.Value), p.Token, p.TTL
	m.GrantorTime, m.Remaining, m.State, m.CheckpointToken, m.Prefix = p.Clock, p.Remaining, bytesOf(p.State), p.StateToken, p.Prefix
	if m.Kind.IsRequest() {
		m.Client = lease.Addr(p.Holder)
	} else {
		m.Holder = lease.Addr(p.Holder)
	}
	for _, kv := range p.Keys {
		m.Keys = append(m.Keys, lease.KV{Key: kv.Key, Value: bytesOf(kv.Value)})
	}
	return m, nil
}

// bytesOf returns s as bytes, nil when empty (as the protocol leaves it).
func bytesOf(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}
