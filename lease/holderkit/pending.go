package holderkit

import (
	"time"

	"github.com/leasesim/leasesim/lease"
)

// Pending is the requests a holder awaits replies to, by id, each under
// the same timeout: a request leaves it through Take (its reply came) or
// through the timeout, whichever is first, and never twice. It is looked
// up by id and never iterated.
type Pending[T any] struct {
	clock     lease.Clock
	timeout   time.Duration
	onTimeout func(id uint64, v T)
	m         map[uint64]*pendingEntry[T]
}

type pendingEntry[T any] struct {
	v     T
	timer lease.Timer
}

// NewPending returns an empty Pending whose requests time out after
// timeout on clock, each handed then to onTimeout.
func NewPending[T any](clock lease.Clock, timeout time.Duration, onTimeout func(id uint64, v T)) *Pending[T] {
	return &Pending[T]{clock: clock, timeout: timeout, onTimeout: onTimeout, m: make(map[uint64]*pendingEntry[T])}
}

// Add awaits the reply to request id, v, and arms its timeout.
func (p *Pending[T]) Add(id uint64, v T) {
	e := &pendingEntry[T]{v: v}
	p.m[id] = e
	e.timer = p.clock.AfterFunc(max(p.timeout, 0), func() { p.expire(id) })
}

// Get returns the request id, if it is still awaited, and leaves it so.
func (p *Pending[T]) Get(id uint64) (T, bool) {
	e := p.m[id]
	if e == nil {
		var zero T
		return zero, false
	}
	return e.v, true
}

// Take returns the request id, if it is still awaited, and stops awaiting
// it (its timeout will not run).
func (p *Pending[T]) Take(id uint64) (T, bool) {
	e := p.m[id]
	if e == nil {
		var zero T
		return zero, false
	}
	delete(p.m, id)
	e.timer.Stop()
	return e.v, true
}

// expire hands request id to onTimeout if it is still awaited.
func (p *Pending[T]) expire(id uint64) {
	e := p.m[id]
	if e == nil {
		return
	}
	delete(p.m, id)
	p.onTimeout(id, e.v)
}
