package consul

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// Resource is the lock's KV key, the resource the holders believe they
// hold and write under. SemaphorePrefix is the semaphore's prefix.
const (
	Resource        = "lock"
	SemaphorePrefix = "sem"
)

// FailpointBeforeWrite is the failpoint between a holder's check that it
// still holds the lock and its write: the Kleppmann GC pause lands here.
const FailpointBeforeWrite = "before-write"

// The nodes of every story here.
const (
	ServerNode = "consul"
	StoreNode  = "store"
)

// Token is the fencing token a holder writes under.
type Token uint8

const (
	// NoToken: api.Lock as it is, which hands out no token; the writes
	// carry token 0 to a store that accepts every write.
	NoToken Token = iota
	// ModifyIndex: after Lock the holder reads the key and writes under
	// its ModifyIndex (the Raft index of the acquire) to the fenced store.
	ModifyIndex
	// LockIndex: the same with the key's LockIndex (how many times the key
	// was acquired), Consul's documented sequencer.
	LockIndex
)

// String names the configuration as scenario names use it.
func (t Token) String() string { return [...]string{"no-token", "modify-index", "lock-index"}[t] }

// Primitive is what the holder locks with.
type Primitive uint8

const (
	// UseLock is api.Lock on Resource.
	UseLock Primitive = iota
	// UseSemaphore is api.Semaphore on SemaphorePrefix with limit 1.
	UseSemaphore
)

// HolderConfig shapes a holder's life.
type HolderConfig struct {
	// Start is when the holder first tries to lock.
	Start time.Duration
	// SessionTTL, LockDelay and MonitorRetries are api.LockOptions' (and
	// api.SemaphoreOptions' but LockDelay, which the semaphore does not
	// set).
	SessionTTL, LockDelay time.Duration
	MonitorRetries        int
	// Hold is how long the holder keeps the lock before it unlocks;
	// WriteEvery how often it writes; Idle how long it waits after an
	// unlock, a lost lock or a failed Lock; WriteTimeout bounds a write.
	Hold, WriteEvery, Idle, WriteTimeout time.Duration
	// Token is the fencing token the holder writes under.
	Token Token
	// Primitive is api.Lock or api.Semaphore.
	Primitive Primitive
	// Budget is a holder-side fix (budget.go), with api.Lock only: the
	// holder renews its own session and believes only until a TTL after
	// its last successful renewal was sent.
	Budget bool
}

// DefaultHolder is api.Lock with its defaults (session TTL 15 s,
// lock-delay 15 s, no monitor retries), held for 20 s with a write every
// 500 ms.
var DefaultHolder = HolderConfig{SessionTTL: 15 * time.Second, LockDelay: DefaultLockDelay, Hold: 20 * time.Second,
	WriteEvery: 500 * time.Millisecond, Idle: time.Second, WriteTimeout: time.Second}

// locker is api.Lock's or api.Semaphore's pair of calls, which have the
// same shape.
type locker struct {
	take func(stop <-chan struct{}) (<-chan struct{}, error)
	give func() error
}

// Holder returns a holder's node function: api.Lock (or api.Semaphore),
// unchanged, over the API client, unchanged. It locks; believes from
// Lock's return (from the token's read, with a token) until the lock's
// lost channel closes, a write is fenced or it unlocks; writes to the
// fenced store every WriteEvery, checking the lost channel before each
// write; unlocks after Hold and starts over with a new Lock (and a new
// session, which api.Lock creates).
func Holder(cfg HolderConfig) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		c, tr, err := NewClient(n)
		if err != nil {
			return err
		}
		defer tr.CloseIdleConnections()
		store := n.NewStoreClient(StoreNode + gohost.StorePort)
		defer store.Close()
		h := &holder{n: n, cfg: cfg, c: c, store: store}
		if !sleep(ctx, cfg.Start) {
			return nil
		}
		for ctx.Err() == nil {
			h.seq++
			h.tenure(ctx)
			sleep(ctx, cfg.Idle)
		}
		return nil
	}
}

// holder is one life of a holder.
type holder struct {
	n      *gohost.Node
	cfg    HolderConfig
	c      *api.Client
	store  *gohost.StoreClient
	seq    int     // tenures, for the lock's value and the writes
	budget *budget // this tenure's, with Budget
}

// tenure locks, holds and unlocks once.
func (h *holder) tenure(ctx context.Context) {
	h.budget = nil
	if h.cfg.Budget {
		b, err := newBudget(ctx, h.n, h.c, h.cfg)
		if err != nil {
			return
		}
		h.budget = b
		defer b.close(ctx)
	}
	l, err := h.locker()
	if err != nil {
		panic("consul: lock options: " + err.Error()) // the options are the holder's own
	}
	lost, err := l.take(ctx.Done())
	if err != nil || lost == nil {
		return
	}
	h.hold(ctx, lost)
	_ = l.give() // its error is the client's business; the belief ended already
	<-lost       // monitorLock returns once the key changes or a request fails
}

// endBelief ends the belief for reason (history.EndRelease: released).
func (h *holder) endBelief(token uint64, reason history.EndReason) {
	if h.budget != nil {
		h.budget.end()
	}
	h.n.EndBelief(Resource, token, reason)
}

// value is the lock's value this tenure: it tells the holder's own key
// from another's when it reads the token.
func (h *holder) value() string { return fmt.Sprintf("%s/%d/%d", h.n.Name(), h.n.Incarnation(), h.seq) }

// locker makes this tenure's api.Lock or api.Semaphore.
func (h *holder) locker() (locker, error) {
	ttl := h.cfg.SessionTTL.String()
	if h.cfg.Primitive == UseSemaphore {
		s, err := h.c.SemaphoreOpts(&api.SemaphoreOptions{Prefix: SemaphorePrefix, Limit: 1, Value: []byte(h.value()),
			SessionTTL: ttl, MonitorRetries: h.cfg.MonitorRetries})
		if err != nil {
			return locker{}, fmt.Errorf("semaphore: %w", err)
		}
		return locker{take: s.Acquire, give: s.Release}, nil
	}
	opts := &api.LockOptions{Key: Resource, Value: []byte(h.value()), SessionTTL: ttl,
		LockDelay: h.cfg.LockDelay, MonitorRetries: h.cfg.MonitorRetries}
	if h.budget != nil {
		opts.Session = h.budget.id
	}
	l, err := h.c.LockOpts(opts)
	if err != nil {
		return locker{}, fmt.Errorf("lock: %w", err)
	}
	return locker{take: l.Lock, give: l.Unlock}, nil
}

// settle is how long a holder waits after Lock returns before its own
// requests: api.Lock's monitor goroutine sends its first query at the
// instant Lock returns, and two requests of one node at one instant of the
// bubble's clock would dial in an order the Go runtime picks (connections
// are numbered in the trace by dial order).
const settle = time.Millisecond

// forever is a belief's deadline: api.Lock's holder has none, it believes
// until the lost channel closes.
const forever = 24 * time.Hour

// hold runs one tenure, from a successful Lock to the unlock.
func (h *holder) hold(ctx context.Context, lost <-chan struct{}) {
	n := h.n
	// Lock started its monitor's blocking query at this very instant of the
	// bubble's clock; the holder lets it dial first (see settle).
	if !sleep(ctx, settle) {
		return
	}
	token, ok := h.token(ctx)
	if !ok {
		return
	}
	if h.budget != nil {
		h.budget.believe(token)
	} else {
		n.Believe(Resource, token, n.Now().Add(forever))
	}
	acquired := n.Now()
	for {
		select {
		case <-lost:
			h.endBelief(token, history.EndLost)
			return
		case <-ctx.Done():
			return
		default:
		}
		if n.Now().Sub(acquired) >= h.cfg.Hold {
			h.endBelief(token, history.EndRelease)
			return
		}
		if h.budget != nil && !h.budget.valid() {
			h.endBelief(token, history.EndDeadline)
			return
		}
		// The holder decides to write now, on the check it just made: the
		// action counts at the decision (gohost.Node.Act), before the
		// failpoint where it may stall between deciding and writing.
		n.Act(Resource, token)
		n.Failpoint(FailpointBeforeWrite)
		if ctx.Err() != nil {
			return
		}
		wctx, cancel := context.WithTimeout(ctx, h.cfg.WriteTimeout)
		err := h.store.Write(wctx, Resource, token, "data", fmt.Sprintf("%s-%d", h.value(), acquired.UnixNano()))
		cancel()
		if errors.Is(err, gohost.ErrFenced) {
			h.endBelief(token, history.EndFenced)
			return
		}
		select {
		case <-lost:
			h.endBelief(token, history.EndLost)
			return
		case <-ctx.Done():
			return
		case <-time.After(h.cfg.WriteEvery):
		}
	}
}

// token reads the fencing token of this tenure: 0 without one, else the
// key's ModifyIndex or LockIndex, read right after Lock, provided the key
// still carries this tenure's value and a session.
func (h *holder) token(ctx context.Context) (uint64, bool) {
	if h.cfg.Token == NoToken {
		return 0, true
	}
	pair, _, err := h.c.KV().Get(Resource, (&api.QueryOptions{RequireConsistent: true}).WithContext(ctx))
	if err != nil || pair == nil || string(pair.Value) != h.value() || pair.Session == "" {
		return 0, false
	}
	if h.cfg.Token == LockIndex {
		return pair.LockIndex, true
	}
	return pair.ModifyIndex, true
}

// sleep waits d or until ctx ends, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
