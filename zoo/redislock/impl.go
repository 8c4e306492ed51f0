package redislock

import (
	"github.com/leasesim/leasesim/lease"
)

// Spec is the specification the server follows: a key-value store with
// server-side expiry (model.ExpiringKey).
const Spec = "expiring-key"

// Options are the choices a deployment of the lock makes.
type Options struct {
	// Persistence is how the server keeps keys across a restart; the zero
	// value is AppendFsyncAlways.
	Persistence Persistence
}

// bugs are deliberate defects, for mutants only.
type bugs struct {
	// extendIgnoresRefusal reads the touch script's 0 (the key is not
	// ours) as success: see Mutant.
	extendIgnoresRefusal bool
	// sessionToken fences with a session id: see SessionTokenMutant.
	sessionToken bool
}

// Impl returns the Redis-style lock with a server that fsyncs every change
// (AppendFsyncAlways).
func Impl() lease.Impl { return ImplWith(Options{}) }

// ImplWith returns the Redis-style lock deployed with opts. Every mode but
// AppendFsyncAlways is named after it ("zoo/redislock/no-persistence"),
// since it changes what survives a server restart.
func ImplWith(opts Options) lease.Impl {
	name, doc := "zoo/redislock", "a Redis-style lock (SET NX PX, touch, unlock script, INCR token), server fsyncs every change"
	if opts.Persistence != AppendFsyncAlways {
		name = "zoo/redislock/" + opts.Persistence.String()
		doc = "the Redis-style lock with its server configured " + opts.Persistence.String() +
			": a restart loses acknowledged locks and fencing counters"
	}
	return build(name, doc, opts, bugs{})
}

// Mutant returns the lock with a bug go-redsync shipped twice: the touch
// (extend) script answers 0 when the key is no longer the caller's, but
// redsync compared the reply, an int64 inside an interface{}, with the
// untyped constant 0, an int, so the comparison never matched and Extend
// reported success for an expired or stolen lock. Fixed in
// https://github.com/go-redsync/redsync/pull/38 ("now the functions returns
// true for expired keys") and, after it came back, in
// https://github.com/go-redsync/redsync/pull/61 ("Extend and Unlock do not
// work correctly if the lock expired"). A holder whose lock expired during
// a pause or a partition renews on waking, is told "extended", and believes
// again while another holder has the lock: exclusivity (P1) breaks; the
// fenced store still refuses its writes (P2 holds).
func Mutant() lease.Impl {
	return build("zoo/redislock/extend-ignores-refusal",
		"redsync's Extend bug (redsync#38, #61): a refused touch is read as success, so an expired lock is believed again",
		Options{}, bugs{extendIgnoresRefusal: true})
}

// SessionTokenMutant returns the lock fencing with a session id instead of
// a token drawn per acquisition: each holder draws one id when its first
// attempt starts (INCR on one counter, sessionKey) and fences every lock it
// takes with it, as a lock does that uses an etcd lease ID or a ZooKeeper
// or Consul session ID as its fencing token. The id grows with the
// session's age, not with the order the lock changes hands: a holder whose
// session began later takes the lock first, pauses before its write, the
// lock passes to an older session with a smaller id, whose write the
// fenced store accepts, and then the paused holder's write with the larger
// id lands after it. Tokens the store accepted never decrease, and each
// was believed by its writer: only the order the lock changed hands in
// shows the stale write (P2).
func SessionTokenMutant() lease.Impl {
	return build("zoo/redislock/session-token",
		"fences with a session id drawn when the holder starts: the id grows with session age, not with acquisition",
		Options{}, bugs{sessionToken: true})
}

// build assembles an Impl.
func build(name, doc string, opts Options, b bugs) lease.Impl {
	return lease.Impl{
		Name: name,
		Doc:  doc,
		NewGrantor: func(env lease.Env, _ lease.Config) (lease.Grantor, error) {
			return newServer(env, opts.Persistence)
		},
		NewHolder: func(env lease.Env, cfg lease.Config, server, store lease.Addr) (lease.Holder, error) {
			return newHolder(env, cfg, server, store, b)
		},
		NewResource: lease.NewResource,
		// The server expires a key at exactly its TTL (PX) on its clock, so
		// the holder budgets both clocks' drift: it believes for
		// TTL×(1−2rho) − Margin from when it sent the SET or PEXPIRE.
		DriftSplit: lease.SplitHolderBudgets,
		Spec:       Spec,
		Capabilities: lease.Capabilities{
			SideEffects: true,
			Failpoints:  []string{lease.FailpointBeforeWrite},
		},
	}
}
