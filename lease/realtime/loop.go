package realtime

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed means the node was closed or killed.
var ErrClosed = errors.New("realtime: node closed")

// maxQueuedMessages bounds how many incoming messages may wait for the loop;
// beyond it they are dropped, as a congested network would.
const maxQueuedMessages = 10_000

// loop runs closures one at a time on its own goroutine.
type loop struct {
	mu       sync.Mutex
	queue    []func()
	messages int // queued closures that carry a message
	stopped  bool
	wake     chan struct{}
	done     chan struct{}
}

func newLoop() *loop {
	l := &loop{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go l.run()
	return l
}

// post queues f. A message closure is dropped when too many wait. It
// reports whether f was queued.
func (l *loop) post(f func(), message bool) bool {
	l.mu.Lock()
	if l.stopped || (message && l.messages >= maxQueuedMessages) {
		l.mu.Unlock()
		return false
	}
	if message {
		l.messages++
		inner := f
		f = func() {
			l.mu.Lock()
			l.messages--
			l.mu.Unlock()
			inner()
		}
	}
	l.queue = append(l.queue, f)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return true
}

func (l *loop) run() {
	defer close(l.done)
	for {
		l.mu.Lock()
		for len(l.queue) == 0 && !l.stopped {
			l.mu.Unlock()
			<-l.wake
			l.mu.Lock()
		}
		if l.stopped {
			l.queue = nil
			l.mu.Unlock()
			return
		}
		batch := l.queue
		l.queue = nil
		l.mu.Unlock()
		for _, f := range batch {
			f()
		}
	}
}

// stop ends the loop once the closure running now returns; queued closures
// are dropped. It waits for the loop goroutine to exit.
func (l *loop) stop() {
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	<-l.done
}

// do runs f on the loop and waits until it has run.
func (l *loop) do(ctx context.Context, f func()) error {
	ran := make(chan struct{})
	if !l.post(func() { f(); close(ran) }, false) {
		return ErrClosed
	}
	select {
	case <-ran:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-l.done:
		select {
		case <-ran:
			return nil
		default:
			return ErrClosed
		}
	}
}
