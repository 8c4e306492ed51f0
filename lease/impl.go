package lease

import (
	"fmt"
	"strconv"
	"time"
)

// Node is a node that receives leasesim's messages.
type Node interface {
	// Deliver hands the node a message from the node at from. It is called
	// on the node's event loop.
	Deliver(from Addr, m Message)
}

// Grantor is the lease store: it grants, renews, releases, revokes and
// checkpoints leases in response to messages. It receives leasesim's
// messages (Node), those of its own protocol (AnyNode), or both: an
// implementation implements only what it speaks, and a harness refuses a
// grantor that takes neither (Receives). An operator revokes leasesim's
// lease by delivering a KindRevoke message.
type Grantor interface{}

// Receives reports whether node takes messages at all: it implements Node,
// AnyNode or both.
func Receives(node any) bool {
	_, lm := node.(Node)
	_, any := node.(AnyNode)
	return lm || any
}

// Holder is a client session manager: it acquires and keeps leases, and acts
// under their tokens. Callbacks run on the node's event loop, and a done
// callback may run before the call that takes it returns. Like a Grantor,
// it receives leasesim's messages (Node), its own (AnyNode) or both; it
// checkpoints (Checkpointer) and performs side effects (Effector) only
// when its implementation declares those Capabilities.
type Holder interface {
	// Acquire starts acquiring resource and keeps it (renewing, and
	// re-acquiring after a loss) until Release. It does nothing if the
	// resource is already being acquired or held.
	Acquire(resource string, opts AcquireOptions)
	// Release stops believing at once, then releases the lease at the
	// grantor (best effort).
	Release(resource string)
	// Valid returns the grant and true iff the lease is held and the local
	// clock is before its deadline.
	Valid(resource string) (Grant, bool)
	// Write writes key=value to the fenced resource under the lease's
	// token. done receives nil, ErrLeaseExpired (not valid, nothing sent),
	// ErrFenced (the holder then drops the lease) or ErrTimeout. Write
	// copies value and does not keep it once it returns, so the caller may
	// reuse it (every implementation in this module does: the core, its
	// mutants and the zoo's).
	Write(resource, key string, value []byte, done func(error))
}

// Checkpointer is a Holder that checkpoints: what Capabilities.Checkpoints
// declares.
type Checkpointer interface {
	// Checkpoint stores state at the grantor under the lease's token. done
	// receives nil, ErrLeaseExpired (not valid, nothing sent), ErrFenced
	// (refused as stale) or ErrTimeout (no answer: the state may still be
	// stored, and the harness then treats the outcome as unknown). Like
	// Write, it does not keep state once it returns.
	Checkpoint(resource string, state []byte, done func(error))
}

// Reader is a Holder that reads the fenced resource back: what
// Capabilities.Reads declares.
type Reader interface {
	// Read reads key from the fenced resource under the lease's token (the
	// request carries it). done receives the key's latest value and the
	// token that wrote it (nil and 0 if it was never written), or
	// ErrLeaseExpired (not valid, nothing sent), ErrFenced (the value was
	// written under a later token than the lease's: the holder then drops
	// the lease, as when a write is fenced) or ErrTimeout. The value is
	// the caller's to keep.
	Read(resource, key string, done func(value []byte, token uint64, err error))
}

// Effector is a Holder that performs unfenced side effects: what
// Capabilities.SideEffects declares.
type Effector interface {
	// SideEffect performs an unfenced external side effect named id (a
	// webhook, an email): fire and forget, no token.
	SideEffect(resource, id string)
}

// Resource is a fenced store: it accepts a write only if its token is at
// least the highest it has accepted for that resource. Like a Grantor, it
// receives leasesim's messages (Node), its own (AnyNode) or both; the
// harness needs nothing else of it.
type Resource interface{}

// LeaseLookup is offered by leasesim's own grantor beyond what the harness
// calls: the lease it records for a resource, if it has not expired (a
// revoked lease is reported, with Revoked set, until its old expiry passes).
// Tests and mutants use it.
type LeaseLookup interface {
	Lookup(resource string) (LeaseInfo, bool)
}

// FenceLookup is offered by leasesim's own fenced store beyond what the
// harness calls: the highest token accepted for a resource, and how many
// times a side effect was performed. Tests and mutants use it.
type FenceLookup interface {
	Highest(resource string) uint64
	Effects(resource, id string) int
}

// Closer is offered by leasesim's own holder beyond what the harness calls:
// Close releases every lease, in resource order, and stops acquiring. The
// real-time runtime uses it to shut a holder down.
type Closer interface {
	Close()
}

// AcquireOptions configures Holder.Acquire.
type AcquireOptions struct {
	// Keys are registrations attached to the lease; they vanish with it.
	Keys []KV
	// OnGrant is called each time the lease is granted (again).
	OnGrant func(Grant)
	// OnLost is called when a held lease is lost: err wraps
	// ErrLeaseExpired or ErrFenced. token is the lost lease's token, or 0
	// when acquiring gave up (err then says why, for example
	// ErrTTLOutOfRange).
	OnLost func(resource string, token uint64, err error)
}

// Grant is a holder's view of a lease it holds.
type Grant struct {
	Resource        string
	Token           uint64
	TTL             time.Duration
	Deadline        time.Duration // local monotonic reading at which belief ends
	State           []byte        // latest accepted checkpoint at grant time
	CheckpointToken uint64        // token State was accepted under; 0 if none
}

// LeaseInfo is the grantor's record of a lease.
type LeaseInfo struct {
	Resource  string
	Holder    Addr
	Token     uint64
	TTL       time.Duration
	ExpiresAt time.Duration // grantor's monotonic reading at which it expires
	Revoked   bool
	Keys      []KV
}

// Impl bundles the constructors of one lease implementation, so that a
// harness can drive any implementation, including deliberately broken ones.
type Impl struct {
	Name        string // short name, for example "correct" or "mutant/no-fencing"
	Doc         string // one line on what it is (or what is broken)
	NewGrantor  func(env Env, cfg Config) (Grantor, error)
	NewHolder   func(env Env, cfg Config, grantor, resource Addr) (Holder, error)
	NewResource func(env Env) (Resource, error)
	// DriftSplit declares how the implementation's grantor and holders share
	// the drift budget. The harness runs it with Config.DriftSplit set to
	// this, so P3 judges the grantor by the expiry policy it follows.
	DriftSplit DriftSplit
	// Spec names the specification the lease store follows, as the
	// history's header and `simrun list` name it ("expiring-key",
	// "cas-record"); "" means leasesim's own "lease-store".
	Spec string
	// Capabilities declares what the implementation supports beyond
	// acquiring, keeping and releasing a lease and writing under its token.
	// A catalogue scenario that needs more is skipped, with the reason.
	Capabilities Capabilities
	// Members is how many nodes the lease store runs on: 0 or 1 is one
	// grantor; N > 1 is a replicated store whose members a harness names
	// MemberAddrs(grantor, N) and builds each with NewGrantor. Holders
	// still get the first member's address, and find the others by
	// MemberAddrs.
	Members int
}

// MemberAddrs returns the addresses of an n-member lease store whose first
// member is grantor: grantor, grantor2, …, grantorN. For n <= 1 it is
// grantor alone.
func MemberAddrs(grantor Addr, n int) []Addr {
	out := []Addr{grantor}
	for i := 2; i <= n; i++ {
		out = append(out, Addr(fmt.Sprintf("%s%d", grantor, i)))
	}
	return out
}

// ParseMember returns the first member's address and self's index (0 for
// the first) in an n-member store named as MemberAddrs names it. ok is
// false if self is not such a name. A first member whose name ends in a
// digit is read as a later member's, so MemberAddrs's grantor should not
// end in one.
func ParseMember(self Addr, n int) (grantor Addr, index int, ok bool) {
	s := string(self)
	end := len(s)
	for end > 0 && s[end-1] >= '0' && s[end-1] <= '9' {
		end--
	}
	if end == len(s) {
		return self, 0, n >= 1
	}
	i, err := strconv.Atoi(s[end:])
	if err != nil || i < 2 || i > n || end == 0 || s[end:] != strconv.Itoa(i) {
		return "", 0, false
	}
	return Addr(s[:end]), i - 1, true
}

// Capabilities is what an implementation supports beyond the core: a
// scenario that needs something missing is skipped, never failed for it.
// The zero value supports nothing optional.
type Capabilities struct {
	// Checkpoints: the holder is a Checkpointer, whose Checkpoint stores
	// state at the lease store under the token, and a new holder's Grant
	// carries the latest state.
	Checkpoints bool
	// Registrations: AcquireOptions.Keys are attached to the lease and
	// vanish with it, and the lease store answers leasesim's list request.
	Registrations bool
	// SideEffects: the holder is an Effector, whose SideEffect performs the
	// unfenced effect.
	SideEffects bool
	// Reads: the holder is a Reader, whose Read reads the fenced resource
	// back under the lease's token.
	Reads bool
	// Failpoints are the Env.Failpoint names the implementation reaches.
	Failpoints []string
	// ElectionTick, when positive, says the implementation is a replicated
	// store that reads Config.ElectionTimeout, counted in whole ticks of
	// this length, more than one (a heartbeat takes one). A harness offers
	// that knob to no other implementation.
	ElectionTick time.Duration
}

// OrCorrect returns impl, or Correct() for the zero Impl: how a harness
// reads an implementation it was not given.
func (impl Impl) OrCorrect() Impl {
	if impl.NewGrantor == nil {
		return Correct()
	}
	return impl
}

// AllCapabilities is what leasesim's own implementation supports.
func AllCapabilities() Capabilities {
	return Capabilities{Checkpoints: true, Registrations: true, SideEffects: true, Reads: true,
		Failpoints: []string{FailpointBeforeWrite, FailpointBeforeCheckpoint}}
}

// AnyNode is a node of an implementation that keeps its own messages: the
// harness hands it every message that is not a lease.Message. A message
// that implements history.Described is recorded as its part of an
// operation, so the specification can judge it; any other is carried but
// not recorded.
type AnyNode interface {
	// DeliverAny hands the node a message of its own protocol from the
	// node at from, on the node's event loop.
	DeliverAny(from Addr, m any)
}

// AnyTransport sends messages of an implementation's own protocol. The
// harness's Env.Net implements it: an implementation asserts
// env.Net.(AnyTransport).
type AnyTransport interface {
	// SendAny queues m for delivery to the node at to. m must not be
	// changed after the call.
	SendAny(to Addr, m any)
}

// Correct returns the implementation in this package. It has no bug
// switches; broken variants wrap it through the interfaces.
func Correct() Impl {
	return Impl{
		Name:         "correct",
		Doc:          "the lease implementation of package lease",
		NewGrantor:   NewGrantor,
		NewHolder:    NewHolder,
		NewResource:  NewResource,
		Capabilities: AllCapabilities(),
	}
}

var (
	_ Grantor     = (*grantor)(nil)
	_ LeaseLookup = (*grantor)(nil)
	_ Holder      = (*holder)(nil)
	_ Reader      = (*holder)(nil)
	_ Closer      = (*holder)(nil)
	_ Resource    = (*resource)(nil)
	_ FenceLookup = (*resource)(nil)
)
