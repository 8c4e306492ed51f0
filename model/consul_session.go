package model

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
)

// The Consul session and KV operations, as a history records them
// (request kind; the reply's kind adds "_reply"). A session is named by
// its ID in Holder; every reply carries the server's clock reading in
// Clock.
const (
	// OpConsulSessionCreate creates a session with TTL; the reply's
	// Holder is its ID.
	OpConsulSessionCreate = "session_create"
	// OpConsulSessionRenew renews session Holder: OK, or Err
	// ConsulNotFound.
	OpConsulSessionRenew = "session_renew"
	// OpConsulSessionDestroy invalidates session Holder.
	OpConsulSessionDestroy = "session_destroy"
	// OpConsulSessionInfo reads session Holder: OK if it exists.
	OpConsulSessionInfo = "session_info"
	// OpConsulAcquire is PUT Key ?acquire=Holder: OK if acquired; Err
	// ConsulInvalidSession if the session does not exist.
	OpConsulAcquire = "kv_acquire"
	// OpConsulRelease is PUT Key ?release=Holder: OK if released.
	OpConsulRelease = "kv_release"
	// OpConsulGet is GET Key: OK if found, its session in Holder and its
	// LockIndex in Token.
	OpConsulGet = "kv_get"
	// OpConsulPut is a plain PUT of Key (with or without ?cas=): OK if
	// written.
	OpConsulPut = "kv_put"
	// OpConsulDelete is DELETE Key (or every key under Prefix, with
	// ?recurse): OK if deleted.
	OpConsulDelete = "kv_delete"
	// OpConsulFailover is a new leader taking over with the durable
	// state: the reply's Keys name, in Key, the sessions it renewed; the
	// request's Clock is the last reading at which the previous leader is
	// known to have served (0: unknown).
	OpConsulFailover = "failover"
)

// The Consul errors the specification reads (a reply's Err). Any other
// error is legal and changes nothing.
const (
	ConsulNotFound       = "not_found"
	ConsulInvalidSession = "invalid_session"
)

// ConsulSession returns the specification of a Consul server's sessions
// and KV locks under the invalidation bound policy gives (a session
// renewed at r is invalidated no earlier than r+TTL and no later than
// r+TTL+Hold(TTL)) and the lock-delay lockDelay of every session, over
// the history's operations (the OpConsul* kinds). It is not partitioned:
// a session spans the keys it holds. Each rule and what it follows
// (Consul's "Sessions and distributed locks overview",
// developer.hashicorp.com/consul/docs/automate/session, and the /v1/session
// and /v1/kv HTTP API references):
//
//   - Sessions: a session is invalidated when it is destroyed or its TTL
//     runs out (the overview's contract). The TTL is a lower bound: "Consul
//     promises not to terminate a session before the TTL has expired, but
//     is allowed to extend the expiration past it" (hashicorp/consul pull
//     request #524, which added session TTLs after Chubby), so a renewal
//     gives a session at least its TTL, and the history declares how far
//     past it the server may go (Consul's leader waits twice the TTL). A
//     renewal of an invalidated session is not found; so is its info. "A
//     TTL is extended on creation, heartbeat or failover" (#524): a new
//     leader renews every session, which its failover reply names; no session is
//     invalidated while there is no leader, so the bound applies up to
//     the last reading the previous leader is known to have served at
//     (the request's Clock).
//   - Locks (the KV API's acquire and release): an acquire succeeds when
//     the key has no holder (or the session already holds it), the
//     session is valid and no lock-delay is in force; it makes the
//     session the key's holder and raises the key's LockIndex when the
//     holder changes; an acquire under a session that does not exist is
//     an error. A release succeeds only by the holder. Invalidation
//     releases every key the session holds (the default behaviour,
//     release).
//   - Lock-delay (the overview, "lock-delay"): after a session holding a
//     key is invalidated, an acquire of that key is refused for the
//     session's lock-delay: success at t needs the invalidation no later
//     than t-lockDelay, and a refusal of a free key no earlier than
//     t-lockDelay+1ns. A release by the holder sets none.
//
// What it ignores: values, flags and ModifyIndex (a plain or cas PUT that
// fails is legal; one that succeeds makes the key exist), the delete
// behaviour, health checks, and blocking.
func ConsulSession(policy LeasePolicy, lockDelay time.Duration) porcupine.Model {
	return unpartitionedModel(porcupine.Model{
		Init: func() any { return consulState{} },
		Step: func(state, input, output any) (bool, any) {
			next, why := consulStep(state.(consulState), policy, lockDelay, operationOf(input), payloadOf(output))
			return why == "", next
		},
		Equal:             func(a, b any) bool { return a.(consulState).equal(b.(consulState)) },
		Hash:              func(state any) uint64 { return state.(consulState).hash() },
		DescribeOperation: func(input, output any) string { return describeSessionOp(operationOf(input), payloadOf(output)) },
		DescribeState:     func(state any) string { return state.(consulState).String() },
	})
}

// ConsulSessionSpec is ConsulSession with its name ("consul-session") and
// Explain.
func ConsulSessionSpec(policy LeasePolicy, lockDelay time.Duration) Spec {
	return Spec{Name: "consul-session", Model: ConsulSession(policy, lockDelay), Explain: func(state, input, output any) string {
		_, why := consulStep(state.(consulState), policy, lockDelay, operationOf(input), payloadOf(output))
		return why
	}}
}

// noTTL is the timeout of a session created without a TTL: beyond any
// reading.
const noTTL = time.Duration(1 << 62)

// consulKey is a key: whether it exists, its holder (a session ID, ""
// for none), the session whose invalidation released it last (its
// lock-delay may be in force) and its LockIndex.
type consulKey struct {
	key       string
	exists    bool
	holder    string
	delayedBy string
	lockIndex int64
}

// consulState is the keys, sorted, the sessions in creation order and the
// latest server reading seen.
type consulState struct {
	keys     []consulKey
	sessions []sessionWin
	lastT    time.Duration
}

func (s consulState) clone() consulState {
	return consulState{keys: slices.Clone(s.keys), sessions: slices.Clone(s.sessions), lastT: s.lastT}
}

func (s consulState) equal(o consulState) bool {
	return s.lastT == o.lastT && slices.Equal(s.keys, o.keys) && slices.Equal(s.sessions, o.sessions)
}

func (s consulState) hash() uint64 {
	h := fnvOffset.u64(uint64(s.lastT))
	for _, k := range s.keys {
		h = h.str(k.key).u64(b2u(k.exists)).str(k.holder).str(k.delayedBy).u64(uint64(k.lockIndex))
	}
	for _, w := range s.sessions {
		h = w.hash(h)
	}
	return uint64(h)
}

// String describes the state, for example `lock held by s1 (lock index
// 1); s1 valid until 10s, gone by 20s; t=5s`.
func (s consulState) String() string {
	var parts []string
	for _, k := range s.keys {
		d := k.key
		switch {
		case k.holder != "":
			d += " held by " + k.holder
		case k.delayedBy != "":
			d += " released by " + k.delayedBy + "'s invalidation"
		default:
			d += " free"
		}
		parts = append(parts, fmt.Sprintf("%s (lock index %d)", d, k.lockIndex))
	}
	for _, w := range s.sessions {
		parts = append(parts, w.String())
	}
	return strings.Join(append(parts, fmt.Sprintf("t=%v", s.lastT)), "; ")
}

// key returns the index of key, adding it (absent) if it is not there.
func (s *consulState) key(key string) int {
	i, ok := slices.BinarySearchFunc(s.keys, key, func(k consulKey, x string) int { return strings.Compare(k.key, x) })
	if !ok {
		s.keys = slices.Insert(s.keys, i, consulKey{key: key})
	}
	return i
}

// settle applies what time alone decides, and what an invalidation seen
// implies: sessions past their bound are gone, and every key a gone
// session held is free, under its lock-delay.
func (s *consulState) settle(t time.Duration) {
	for i := range s.sessions {
		s.sessions[i].advance(t)
	}
	for i := range s.keys {
		k := &s.keys[i]
		if j := sessionIndex(s.sessions, k.holder); k.holder != "" && j >= 0 && s.sessions[j].dead {
			k.holder, k.delayedBy = "", k.holder
		}
	}
}

// session returns the window of id, or nil.
func (s *consulState) session(id string) *sessionWin {
	if i := sessionIndex(s.sessions, id); i >= 0 {
		return &s.sessions[i]
	}
	return nil
}

// consulStep applies one operation to s: the next state, and "" if it is
// legal in s, or why not.
func consulStep(s consulState, policy LeasePolicy, lockDelay time.Duration, op *history.Operation,
	out *history.Payload) (consulState, string) {
	in := &op.Input
	if !answers(out.Kind, in.Kind) {
		return s, fmt.Sprintf("reply %v does not answer %v", out.Kind, in.Kind)
	}
	t := out.Clock
	if t < s.lastT {
		return s, fmt.Sprintf("server time went backwards: t=%v after t=%v", t, s.lastT)
	}
	s = s.clone()
	s.lastT = t
	if in.Kind == OpConsulFailover {
		why := s.failover(min(in.Clock, t), out, t)
		s.settle(t)
		return s, why
	}
	s.settle(t)
	var why string
	switch in.Kind {
	case OpConsulSessionCreate:
		why = s.create(policy, lockDelay, in, out, t)
	case OpConsulSessionRenew, OpConsulSessionInfo:
		why = s.renewOrInfo(in, out, t)
	case OpConsulSessionDestroy:
		if w := s.session(in.Holder); w != nil && out.Err == "" {
			w.invalidate(t)
		}
	case OpConsulAcquire:
		why = s.acquire(in, out, t)
	case OpConsulRelease:
		why = s.release(in, out, t)
	case OpConsulGet:
		why = s.get(in, out, t)
	case OpConsulPut:
		if out.Err == "" && out.OK {
			s.keys[s.key(in.Key)].exists = true
		}
	case OpConsulDelete:
		if out.Err == "" && out.OK {
			s.remove(in)
		}
	default:
		why = fmt.Sprintf("%v is not a consul-session operation", in.Kind)
	}
	s.settle(t)
	return s, why
}

// create adds a session.
func (s *consulState) create(policy LeasePolicy, lockDelay time.Duration, in, out *history.Payload, t time.Duration) string {
	switch {
	case out.Err != "":
		return ""
	case out.Holder == "" || s.session(out.Holder) != nil:
		return fmt.Sprintf("session create returned ID %q, which is not a new ID", out.Holder)
	}
	ttl, hold := in.TTL, policy.Hold(in.TTL)-in.TTL
	if ttl <= 0 { // no TTL: only a destroy invalidates it
		ttl, hold = noTTL, 0
	}
	s.sessions = append(s.sessions, newSession(out.Holder, ttl, hold, lockDelay, t))
	return ""
}

// renewOrInfo answers a renewal or an info read: found if and only if the
// session is valid; a renewal renews it.
func (s *consulState) renewOrInfo(in, out *history.Payload, t time.Duration) string {
	w := s.session(in.Holder)
	found := out.Err == "" && out.OK
	switch {
	case out.Err != "" && out.Err != ConsulNotFound:
		return ""
	case w == nil && found:
		return fmt.Sprintf("%s found session %s, which was never created", in.Kind, in.Holder)
	case w == nil:
		return ""
	case !found:
		if why := w.gone(t); why != "" {
			return in.Kind + " found nothing: " + why
		}
		return ""
	}
	if why := w.valid(t); why != "" {
		return in.Kind + " found it: " + why
	}
	if in.Kind == OpConsulSessionRenew && w.ttl > 0 {
		w.renew(t)
	}
	return ""
}

// failover renews the sessions the reply names and learns that the others
// are gone. No session is invalidated while there is no leader: the bounds
// are applied up to lost, the previous leader's last known reading, and a
// session whose bound fell after it may be renewed.
func (s *consulState) failover(lost time.Duration, out *history.Payload, t time.Duration) string {
	s.settle(lost)
	return reopen(s.sessions, out.Keys, lost, t, consulFailedOver, false)
}

// acquire applies PUT ?acquire=: the session's validity, the key's holder
// and its lock-delay decide it.
func (s *consulState) acquire(in, out *history.Payload, t time.Duration) string {
	w := s.session(in.Holder)
	switch {
	case out.Err == ConsulInvalidSession && w != nil:
		if why := w.gone(t); why != "" {
			return "acquire under an invalid session: " + why
		}
		return ""
	case out.Err != "":
		return ""
	case w == nil:
		return fmt.Sprintf("acquire under session %s, which was never created, did not fail as invalid", in.Holder)
	}
	if why := w.valid(t); why != "" {
		return "acquire did not fail as invalid: " + why
	}
	k := s.keys[s.key(in.Key)]
	if k.holder == in.Holder {
		if !out.OK {
			return fmt.Sprintf("acquire of %s refused, but its session %s holds it", in.Key, in.Holder)
		}
		return ""
	}
	if out.OK {
		return s.acquired(in, t)
	}
	return s.refused(in, t)
}

// acquired applies a successful acquire of a key the session does not
// hold: its holder must be gone, and any lock-delay over.
func (s *consulState) acquired(in *history.Payload, t time.Duration) string {
	k := &s.keys[s.key(in.Key)]
	if k.holder != "" {
		if why := s.session(k.holder).gone(t); why != "" {
			return fmt.Sprintf("%s acquired %s from %s: %s", in.Holder, in.Key, k.holder, why)
		}
		s.settle(t)
		k = &s.keys[s.key(in.Key)]
	}
	if d := s.session(k.delayedBy); d != nil && d.delay > 0 {
		why := fmt.Sprintf("%s acquired %s at t=%v, inside the lock-delay %v of %s's invalidation", in.Holder, in.Key, t,
			d.delay, k.delayedBy)
		if why := d.notAfter(t-d.delay, why); why != "" {
			return why
		}
	}
	k.exists, k.holder, k.lockIndex = true, in.Holder, k.lockIndex+1
	return ""
}

// refused applies a refused acquire by a valid session: the key's holder
// is valid, or a lock-delay is in force.
func (s *consulState) refused(in *history.Payload, t time.Duration) string {
	k := &s.keys[s.key(in.Key)]
	by := k.holder
	if by == "" {
		by = k.delayedBy
	}
	w := s.session(by)
	if w == nil {
		return fmt.Sprintf("acquire of %s by %s refused at t=%v, but the key is free and no lock-delay is in force", in.Key,
			in.Holder, t)
	}
	why := fmt.Sprintf("acquire of %s by %s refused at t=%v", in.Key, in.Holder, t)
	if w.delay == 0 {
		if k.holder == "" {
			return why + ", but the key is free and its last holder had no lock-delay"
		}
		return w.valid(t)
	}
	return w.notBefore(t-w.delay+1, why+" for a lock-delay")
}

// release applies PUT ?release=: only the holder releases.
func (s *consulState) release(in, out *history.Payload, t time.Duration) string {
	if out.Err != "" {
		return ""
	}
	k := &s.keys[s.key(in.Key)]
	switch {
	case k.holder != in.Holder && out.OK:
		return fmt.Sprintf("release of %s by %s succeeded, but the key's holder is %q", in.Key, in.Holder, k.holder)
	case k.holder != in.Holder:
		return ""
	case out.OK:
		if why := s.session(in.Holder).valid(t); why != "" {
			return "release succeeded: " + why
		}
		k.holder = ""
		return ""
	}
	if why := s.session(in.Holder).gone(t); why != "" {
		return fmt.Sprintf("release of %s by its holder refused: %s", in.Key, why)
	}
	return ""
}

// get answers a read: whether the key exists, its holder and LockIndex.
func (s *consulState) get(in, out *history.Payload, t time.Duration) string {
	if out.Err != "" {
		return ""
	}
	k := &s.keys[s.key(in.Key)]
	if out.OK != k.exists {
		return fmt.Sprintf("get %s found %v, but the key exists: %v", in.Key, out.OK, k.exists)
	}
	if !out.OK {
		return ""
	}
	if k.holder != "" && out.Holder != k.holder {
		if out.Holder != "" {
			return fmt.Sprintf("get %s says holder %s, but it is %s", in.Key, out.Holder, k.holder)
		}
		if why := s.session(k.holder).gone(t); why != "" {
			return fmt.Sprintf("get %s says no holder: %s", in.Key, why)
		}
		s.settle(t)
		k = &s.keys[s.key(in.Key)]
	} else if k.holder != "" {
		if why := s.session(k.holder).valid(t); why != "" {
			return fmt.Sprintf("get %s says holder %s: %s", in.Key, k.holder, why)
		}
	} else if out.Holder != "" {
		return fmt.Sprintf("get %s says holder %s, but it has none", in.Key, out.Holder)
	}
	if uint64(k.lockIndex) != out.Token {
		return fmt.Sprintf("get %s says lock index %d, but it is %d", in.Key, out.Token, k.lockIndex)
	}
	return ""
}

// remove deletes a key, or every key under a prefix.
func (s *consulState) remove(in *history.Payload) {
	for i := range s.keys {
		k := &s.keys[i]
		if k.key == in.Key || (in.Prefix != "" && strings.HasPrefix(k.key, in.Prefix)) {
			k.exists, k.holder, k.lockIndex = false, "", 0
		}
	}
}

// describeSessionOp describes a session-specification operation, for
// example `h1 zk_create(0x1, "/lock/n-", ephemeral_sequential) ->
// "/lock/n-0000000003" @t=5s`.
func describeSessionOp(op *history.Operation, out *history.Payload) string {
	in := &op.Input
	var args []string
	for _, a := range []string{sessionArg(in), in.Key, in.Value, in.Prefix} {
		if a != "" {
			args = append(args, quote(a))
		}
	}
	if in.TTL != 0 {
		args = append(args, "ttl "+in.TTL.String())
	}
	result := "ok"
	switch {
	case out.Err != "":
		result = out.Err
	case len(out.Keys) > 0:
		names := make([]string, len(out.Keys))
		for i, kv := range out.Keys {
			names[i] = kv.Key
		}
		result = "[" + strings.Join(names, " ") + "]"
	case out.Key != "":
		result = quote(out.Key)
	case out.Holder != "" || out.Lease != 0:
		result = fmt.Sprintf("%v %s", out.OK, sessionArg(out))
	case !out.OK:
		result = "false"
	}
	if out.Token != 0 {
		result += fmt.Sprintf(" lock index %d", out.Token)
	}
	return fmt.Sprintf("%s %s(%s) -> %s @t=%v", op.Client, in.Kind, strings.Join(args, ", "), result, out.Clock)
}

// sessionArg names the session a payload carries: a Consul ID (Holder)
// or a ZooKeeper id (Lease).
func sessionArg(p *history.Payload) string {
	if p.Lease != 0 {
		return ZKSessionName(p.Lease)
	}
	return p.Holder
}
