package consul

import (
	"context"
	"net"
	"slices"
	"sync"
)

// dialQueue lets a client's dials through one at a time, in the order
// they were asked for. A paused node's dials all block until it resumes,
// then proceed at the same instant of the bubble's clock, and the host
// numbers connections in the order the Go runtime lets those goroutines
// run: two requests could swap connections between two runs. Queued
// first come, first served, the dials reach the host in the order the
// client's goroutines asked for them, which the run decides. The client
// dials only the Consul agent, so a dial that a cut stalls would have
// stalled the ones behind it anyway.
type dialQueue struct {
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	mu      sync.Mutex
	busy    bool
	waiting []chan struct{} // closed to hand the turn to its dial
}

// DialContext dials addr once every dial asked for before it is done.
func (q *dialQueue) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := q.turn(ctx); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	defer q.done()
	return q.dial(ctx, network, addr)
}

// turn waits until the caller may dial, or ctx ends.
func (q *dialQueue) turn(ctx context.Context) error {
	q.mu.Lock()
	if !q.busy {
		q.busy = true
		q.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	q.waiting = append(q.waiting, ch)
	q.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	if i := slices.Index(q.waiting, ch); i >= 0 {
		q.waiting = slices.Delete(q.waiting, i, i+1)
		q.mu.Unlock()
		return ctx.Err()
	}
	q.mu.Unlock()
	q.done() // the turn was handed over as ctx ended: pass it on
	return ctx.Err()
}

// done hands the turn to the next dial, if any.
func (q *dialQueue) done() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 {
		q.busy = false
		return
	}
	close(q.waiting[0])
	q.waiting = q.waiting[1:]
}
