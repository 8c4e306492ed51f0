package consul

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasesim/leasesim/gohost"
)

// budget is the holder-side fix hashicorp/consul#18271 asks for, as
// Terraform's Consul backend does it (hashicorp/terraform#15557: the client
// manages the lock's session): the holder creates the session itself and
// hands it to api.Lock (LockOptions.Session, so Lock starts no renewal of
// its own), renews it itself, each renewal bounded by half the TTL, and
// believes only until the TTL has passed since it sent its last renewal
// that succeeded. The server cannot invalidate the session before that
// (the TTL is a lower bound, counted from when the server processed the
// renewal, after it was sent), so the belief ends before another client
// can lock. api.Lock itself is unchanged.
type budget struct {
	n   *gohost.Node
	c   *api.Client
	ttl time.Duration
	id  string

	mu        sync.Mutex
	deadline  time.Time // the last successful renewal's send time + TTL
	believing bool
	token     uint64

	stop chan struct{}
	done chan struct{}
}

// newBudget creates the tenure's session and starts renewing it.
func newBudget(ctx context.Context, n *gohost.Node, c *api.Client, cfg HolderConfig) (*budget, error) {
	sent := n.Now()
	id, _, err := c.Session().Create(&api.SessionEntry{Name: "leasesim budget", TTL: cfg.SessionTTL.String(),
		LockDelay: cfg.LockDelay}, (&api.WriteOptions{}).WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("budget: create session: %w", err)
	}
	b := &budget{n: n, c: c, ttl: cfg.SessionTTL, id: id, deadline: sent.Add(cfg.SessionTTL),
		stop: make(chan struct{}), done: make(chan struct{})}
	go b.renew(ctx)
	return b, nil
}

// renew renews the session every TTL/2, each try bounded by TTL/2, until
// stopped or the session is gone.
func (b *budget) renew(ctx context.Context) {
	defer close(b.done)
	for {
		select {
		case <-b.stop:
			return
		case <-ctx.Done():
			return
		case <-time.After(b.ttl / 2):
		}
		sent := b.n.Now()
		rctx, cancel := context.WithTimeout(ctx, b.ttl/2)
		entry, _, err := b.c.Session().Renew(b.id, (&api.WriteOptions{}).WithContext(rctx))
		cancel()
		switch {
		case err != nil:
		case entry == nil:
			return // invalidated: the deadline stands
		default:
			b.renewed(sent.Add(b.ttl))
		}
	}
}

// renewed moves the deadline, and the belief if the holder believes.
func (b *budget) renewed(deadline time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !deadline.After(b.deadline) {
		return
	}
	b.deadline = deadline
	if b.believing && b.n.Now().Before(deadline) {
		b.n.Believe(Resource, b.token, deadline)
	}
}

// believe starts the holder's belief under token, until the deadline.
func (b *budget) believe(token uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.believing, b.token = true, token
	b.n.Believe(Resource, token, b.deadline)
}

// valid reports whether the deadline is still ahead.
func (b *budget) valid() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n.Now().Before(b.deadline)
}

// end stops moving the belief; the caller ends it.
func (b *budget) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.believing = false
}

// close stops the renewals and destroys the session.
func (b *budget) close(ctx context.Context) {
	close(b.stop)
	<-b.done
	_, _ = b.c.Session().Destroy(b.id, (&api.WriteOptions{}).WithContext(ctx)) // expires anyway
}
