package redsync

import (
	"context"
	"errors"
	"fmt"
	"time"

	rs "github.com/go-redsync/redsync/v4"
	rsredigo "github.com/go-redsync/redsync/v4/redis/redigo"
	"github.com/gomodule/redigo/redis"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// Resource is the lock's name: the mutex's Redis key, the resource the
// holders believe they hold and write under.
const Resource = "lock"

// TokenKey is the key a holder INCRs for a fencing token after acquiring
// the lock, in the configurations that use one.
const TokenKey = Resource + ":token"

// FailpointBeforeWrite is the failpoint between a holder's check that its
// lock is still valid and its write: the Kleppmann GC pause lands here.
const FailpointBeforeWrite = "before-write"

// The nodes of every story here.
const (
	RedisNode = "redis"
	StoreNode = "store"
)

// HolderConfig shapes a holder's life. The zero value of a duration is
// not usable; DefaultHolder is.
type HolderConfig struct {
	// Start is when the holder first tries to lock.
	Start time.Duration
	// Expiry is the mutex's expiry (redsync.WithExpiry): the key's PX.
	Expiry time.Duration
	// Tries is redsync.WithTries: attempts per Lock, 50–250 ms apart.
	Tries int
	// Hold is how long the holder keeps the lock before it unlocks;
	// ExtendEvery how often it extends it; WriteEvery how often it writes
	// to the store; Idle how long it waits after an unlock or a failed
	// Lock before locking again.
	Hold, ExtendEvery, WriteEvery, Idle time.Duration
	// WriteTimeout bounds one write to the store.
	WriteTimeout time.Duration
	// Token makes the holder INCR TokenKey after each Lock and write under
	// that token (the standard fix: a fencing token from Redis itself).
	// Without it the writes carry token 0: redsync has no token.
	Token bool
	// Client are the Redis client's timeouts.
	Client ClientOptions
}

// DefaultHolder is redsync's default expiry (8 s) and tries (32), held
// for 20 s with an extension every 2 s and a write every 500 ms.
var DefaultHolder = HolderConfig{Expiry: 8 * time.Second, Tries: 32, Hold: 20 * time.Second,
	ExtendEvery: 2 * time.Second, WriteEvery: 500 * time.Millisecond, Idle: time.Second, WriteTimeout: time.Second,
	Client: DefaultClientOptions}

// Holder returns a holder's node function: redsync's Mutex, unchanged,
// over redigo, unchanged, dialling the simulated Redis through the node.
// It locks, believes from Lock's return until the mutex's Until() (the
// validity redsync computes: expiry − elapsed − drift factor × expiry),
// extends in a loop (each success moves the belief to the new Until();
// a failure ends it), writes to the fenced store while the lock is valid,
// unlocks after Hold, and starts over.
//
// Determinism: redsync's values come from crypto/rand (the run must set
// gohost.Config.SeedCryptoRand); its default retry delay draws from the
// global math/rand, which Go 1.24+ cannot seed (rand.Seed is a no-op), so
// the holder passes the same 50–250 ms delay drawn from the node's seeded
// source (redsync.WithRetryDelayFunc). redigo itself draws no randomness
// and starts no goroutine on this path.
func Holder(cfg HolderConfig) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		return RunHolder(ctx, n, n.NewStoreClient(StoreNode+gohost.StorePort), cfg)
	}
}

// RunHolder is Holder's body in env, writing through store.
func RunHolder(ctx context.Context, n Env, store StoreWriter, cfg HolderConfig) error {
	pool := NewPool(n, RedisNode+RedisPort, RedisNode, cfg.Client, true)
	defer pool.Close()
	defer store.Close()
	rnd := n.Rand()
	m := rs.New(rsredigo.NewPool(pool)).NewMutex(Resource, rs.WithExpiry(cfg.Expiry), rs.WithTries(cfg.Tries),
		rs.WithRetryDelayFunc(func(int) time.Duration { return time.Duration(50+rnd.IntN(200)) * time.Millisecond }))
	h := &holder{n: n, cfg: cfg, pool: pool, store: store, m: m}
	if !sleep(ctx, cfg.Start) {
		return nil
	}
	for ctx.Err() == nil {
		if err := m.LockContext(ctx); err != nil {
			sleep(ctx, cfg.Idle)
			continue
		}
		h.hold(ctx)
		if ctx.Err() == nil {
			_, _ = m.UnlockContext(ctx)
			sleep(ctx, cfg.Idle)
		}
	}
	return nil
}

// holder is one life of a holder.
type holder struct {
	n     Env
	cfg   HolderConfig
	pool  *redis.Pool
	store StoreWriter
	m     *rs.Mutex
	seq   int
}

// hold runs one tenure, from a successful Lock to the unlock.
func (h *holder) hold(ctx context.Context) {
	n, m := h.n, h.m
	var token uint64
	if h.cfg.Token {
		var err error
		if token, err = h.incr(ctx); err != nil {
			return
		}
	}
	if !time.Now().Before(m.Until()) {
		return
	}
	n.Believe(Resource, token, m.Until())
	acquired, extended := time.Now(), time.Now()
	for ctx.Err() == nil && time.Since(acquired) < h.cfg.Hold {
		if time.Since(extended) >= h.cfg.ExtendEvery {
			if ok, _ := m.ExtendContext(ctx); !ok {
				n.EndBelief(Resource, token, history.EndLost)
				return
			}
			n.Believe(Resource, token, m.Until())
			extended = time.Now()
		}
		if !time.Now().Before(m.Until()) {
			n.EndBelief(Resource, token, history.EndDeadline)
			return
		}
		// The holder decides to write now, on the check it just made: the
		// action counts here, at the decision (gohost.Node.Act), on every
		// host. A pause between the decision and the write (the failpoint)
		// is what fencing (P2) must catch.
		n.Act(Resource, token)
		n.Failpoint(FailpointBeforeWrite) // between the check and the write
		if ctx.Err() != nil {
			return
		}
		h.seq++
		wctx, cancel := context.WithTimeout(ctx, h.cfg.WriteTimeout)
		err := h.store.Write(wctx, Resource, token, "data", fmt.Sprintf("%s/%d-%d", n.Name(), n.Incarnation(), h.seq))
		cancel()
		if errors.Is(err, gohost.ErrFenced) {
			n.EndBelief(Resource, token, history.EndFenced)
			return
		}
		if !sleep(ctx, h.cfg.WriteEvery) {
			return
		}
	}
	n.Release(Resource, token)
}

// incr takes a fencing token: INCR TokenKey on the same Redis.
func (h *holder) incr(ctx context.Context) (uint64, error) {
	c, err := h.pool.GetContext(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return redis.Uint64(c.Do("INCR", TokenKey))
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
