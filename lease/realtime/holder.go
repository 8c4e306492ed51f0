package realtime

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/leasesim/leasesim/lease"
)

// Holder is a running lease holder with a blocking API.
type Holder struct {
	n    *node
	core lease.Holder
	// waiters are AcquireWait calls waiting for a grant, by resource;
	// touched only on the loop.
	waiters map[string][]chan acquireResult
}

type acquireResult struct {
	grant lease.Grant
	err   error
}

// StartHolder starts a holder listening on opts.Addr that acquires leases
// from the grantor at grantor and writes to the fenced resource at resource.
func StartHolder(opts Options, grantor, resource lease.Addr) (*Holder, error) {
	h := &Holder{waiters: make(map[string][]chan acquireResult)}
	n, err := startNode(opts, func(impl lease.Impl, env lease.Env) (lease.Node, error) {
		core, err := impl.NewHolder(env, opts.Config, grantor, resource)
		h.core = core
		return speaksLease(core, err)
	})
	if err != nil {
		return nil, err
	}
	h.n = n
	opts.Recorder.addHolder(n.Addr())
	return h, nil
}

// Addr returns the address the holder listens on.
func (h *Holder) Addr() lease.Addr { return h.n.Addr() }

// AcquireWait acquires resource and waits until it is granted, ctx ends, or
// acquiring gives up. The lease is then kept (renewed, and re-acquired after
// a loss) until Release; opts.OnGrant and opts.OnLost report every change
// on the node's loop. If the resource is already held, AcquireWait returns
// the current grant; opts then applies only to a new session. If ctx ends
// first and no other AcquireWait waits for the resource, the session is
// released.
func (h *Holder) AcquireWait(ctx context.Context, resource string, opts lease.AcquireOptions) (lease.Grant, error) {
	done := make(chan acquireResult, 1)
	err := h.n.loop.do(ctx, func() {
		if g, ok := h.core.Valid(resource); ok {
			done <- acquireResult{grant: g}
			return
		}
		fresh := len(h.waiters[resource]) == 0
		h.waiters[resource] = append(h.waiters[resource], done)
		if fresh {
			h.core.Acquire(resource, h.wrap(resource, opts))
		}
	})
	if err != nil {
		return lease.Grant{}, err
	}
	select {
	case r := <-done:
		return r.grant, r.err
	case <-ctx.Done():
		if err := h.abandon(resource, done); err != nil {
			return lease.Grant{}, fmt.Errorf("acquire %q: %w", resource, err)
		}
		if r, ok := <-done; ok { // answered while abandoning
			return r.grant, r.err
		}
		return lease.Grant{}, fmt.Errorf("acquire %q: %w", resource, ctx.Err())
	case <-h.n.loop.done:
		return lease.Grant{}, ErrClosed
	}
}

// abandon removes the waiter done and, if it was the last, releases the
// session. done is closed if it was still waiting, so a receive on it
// yields either the answer it got first or nothing.
func (h *Holder) abandon(resource string, done chan acquireResult) error {
	return h.n.loop.do(context.Background(), func() {
		list := h.waiters[resource]
		i := slices.Index(list, done)
		if i < 0 {
			return // already answered
		}
		close(done)
		list = slices.Delete(list, i, i+1)
		if len(list) > 0 {
			h.waiters[resource] = list
			return
		}
		delete(h.waiters, resource)
		h.core.Release(resource)
	})
}

// wrap makes the session's callbacks also answer waiting AcquireWait calls.
func (h *Holder) wrap(resource string, opts lease.AcquireOptions) lease.AcquireOptions {
	onGrant, onLost := opts.OnGrant, opts.OnLost
	opts.OnGrant = func(g lease.Grant) {
		h.notify(resource, acquireResult{grant: g})
		if onGrant != nil {
			onGrant(g)
		}
	}
	opts.OnLost = func(res string, token uint64, err error) {
		if token == 0 { // acquiring gave up
			h.notify(resource, acquireResult{err: err})
		}
		if onLost != nil {
			onLost(res, token, err)
		}
	}
	return opts
}

// notify answers every waiter of resource. It runs on the loop.
func (h *Holder) notify(resource string, r acquireResult) {
	for _, ch := range h.waiters[resource] {
		ch <- r // buffered, one send per waiter
	}
	delete(h.waiters, resource)
}

// Valid returns the current grant of resource if the lease is valid now.
func (h *Holder) Valid(resource string) (lease.Grant, bool) {
	var g lease.Grant
	var ok bool
	if err := h.n.loop.do(context.Background(), func() { g, ok = h.core.Valid(resource) }); err != nil {
		return lease.Grant{}, false
	}
	return g, ok
}

// Write writes key=value to the fenced resource under the lease's token. It
// returns an error wrapping lease.ErrLeaseExpired, lease.ErrFenced or
// lease.ErrTimeout, or ctx's error.
func (h *Holder) Write(ctx context.Context, resource, key string, value []byte) error {
	return h.await(ctx, func(done func(error)) { h.core.Write(resource, key, value, done) })
}

// Checkpoint stores state at the grantor under the lease's token.
func (h *Holder) Checkpoint(ctx context.Context, resource string, state []byte) error {
	c, ok := h.core.(lease.Checkpointer)
	if !ok {
		return fmt.Errorf("realtime: checkpoint: %w", errUnsupported("checkpoints", h.core))
	}
	return h.await(ctx, func(done func(error)) { c.Checkpoint(resource, state, done) })
}

// SideEffect performs an unfenced side effect named id at the resource.
func (h *Holder) SideEffect(resource, id string) error {
	e, ok := h.core.(lease.Effector)
	if !ok {
		return fmt.Errorf("realtime: side effect: %w", errUnsupported("side effects", h.core))
	}
	return h.n.loop.do(context.Background(), func() { e.SideEffect(resource, id) })
}

// Release stops believing in the lease on resource and releases it.
func (h *Holder) Release(resource string) error {
	return h.n.loop.do(context.Background(), func() {
		h.core.Release(resource)
		h.notify(resource, acquireResult{err: fmt.Errorf("acquire %q: released while waiting: %w",
			resource, lease.ErrLeaseExpired)})
	})
}

// await starts an operation on the loop and waits for its completion.
func (h *Holder) await(ctx context.Context, start func(done func(error))) error {
	result := make(chan error, 1)
	if err := h.n.loop.do(ctx, func() { start(func(err error) { result <- err }) }); err != nil {
		return err
	}
	select {
	case err := <-result:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-h.n.loop.done:
		return ErrClosed
	}
}

// Close releases every lease, sends the releases, and stops the holder.
func (h *Holder) Close() error {
	if err := h.n.loop.do(context.Background(), h.core.(lease.Closer).Close); err != nil && !errors.Is(err, ErrClosed) {
		return err
	}
	return h.n.shutdown(true)
}

// Kill stops the holder at once without releasing anything, like a crash:
// its leases expire at the grantor.
func (h *Holder) Kill() error { return h.n.shutdown(false) }
