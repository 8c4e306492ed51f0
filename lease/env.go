package lease

import (
	"fmt"
	"time"
)

// Addr is the address of a node: a name such as "grantor" or "h1" in a
// simulation, or "127.0.0.1:7001" on a real network.
type Addr string

// Clock is a node's monotonic clock with timers. Readings never go backwards;
// their origin is arbitrary and may differ between nodes and between boots.
type Clock interface {
	// Now returns the current monotonic reading.
	Now() time.Duration
	// AfterFunc calls f once, on the node's own event loop, after d has
	// elapsed on this clock.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call. *time.Timer satisfies it.
type Timer interface {
	// Stop prevents the call if it has not run yet and reports whether it
	// did so.
	Stop() bool
}

// WallClock is a node's wall clock. It may be stepped backwards or forwards,
// so the core uses it only to timestamp observer events.
type WallClock interface {
	// WallNow returns the current wall-clock time.
	WallNow() time.Time
}

// Transport sends messages to other nodes. Sending is fire and forget: a
// message may be lost, delayed, duplicated or reordered.
type Transport interface {
	// Send queues m for delivery to the node at to.
	Send(to Addr, m Message)
}

// Storage is the durable key-value store of one node. A store need not copy
// values: the core never modifies a value after it passed it to Put, nor a
// value Get returned, so a store may keep the one and return its own slice
// from the other (the simulator's does; a store over a real disk copies
// anyway).
type Storage interface {
	// Get returns the latest value of key, synced or not. The caller must
	// not modify it.
	Get(key string) ([]byte, bool)
	// Put buffers a write; it is lost on a crash unless Sync follows. The
	// store may keep value: the caller must not modify it afterwards.
	Put(key string, value []byte)
	// Delete buffers the removal of key.
	Delete(key string)
	// Sync makes every earlier Put and Delete durable.
	Sync() error
}

// Rand is a source of random numbers. *math/rand/v2.Rand satisfies it.
type Rand interface {
	// Int64N returns a number in [0, n). It panics if n <= 0.
	Int64N(n int64) int64
}

// Env is everything a node may touch. Self, Clock, Net, Store and Rand are
// required; Wall, Observer and Failpoint may be nil.
type Env struct {
	Self     Addr      // the node's own address
	Clock    Clock     // monotonic clock and timers
	Wall     WallClock // wall clock, used only to timestamp events; nil reads as the zero time
	Net      Transport // message transport
	Store    Storage   // the node's durable storage
	Rand     Rand      // random source, used for backoff jitter
	Observer Observer  // lifecycle events; nil discards them
	// Failpoint marks a named point in node code; nil runs then at once.
	// A harness may run then later (a pause) or never (a crash), so code
	// after a Failpoint call does nothing observable. It runs then at most
	// once, and a node's in the order of its Failpoint calls: a paused node
	// resumes where it stopped.
	Failpoint func(name string, then func())
}

// Failpoint names the core passes to Env.Failpoint.
const (
	// FailpointBeforeWrite is reached by a holder after it decided to write
	// under its token and before the write leaves the node.
	FailpointBeforeWrite = "before-write"
	// FailpointBeforeCheckpoint is reached by a holder after it decided to
	// checkpoint under its token and before the request leaves the node.
	FailpointBeforeCheckpoint = "before-checkpoint"
)

// validate reports the first required field that is missing.
func (e Env) validate() error {
	missing := ""
	switch {
	case e.Self == "":
		missing = "Self"
	case e.Clock == nil:
		missing = "Clock"
	case e.Net == nil:
		missing = "Net"
	case e.Store == nil:
		missing = "Store"
	case e.Rand == nil:
		missing = "Rand"
	}
	if missing != "" {
		return fmt.Errorf("env.%s is nil or empty: %w", missing, ErrInvalidConfig)
	}
	return nil
}

// now returns the monotonic reading.
func (e Env) now() time.Duration { return e.Clock.Now() }

// afterFunc arms f after d on the node's clock.
func (e Env) afterFunc(d time.Duration, f func()) Timer { return e.Clock.AfterFunc(d, f) }

// failpoint runs then through Env.Failpoint, or at once if there is none.
func (e Env) failpoint(name string, then func()) {
	if e.Failpoint == nil {
		then()
		return
	}
	e.Failpoint(name, then)
}

// observe stamps ev with the node and its clocks and hands it to the observer.
func (e Env) observe(ev Event) {
	if e.Observer == nil {
		return
	}
	ev.Node = e.Self
	ev.Local = e.Clock.Now()
	if e.Wall != nil {
		ev.Wall = e.Wall.WallNow()
	}
	e.Observer.Observe(ev)
}

// send sends m to the node at to.
func (e Env) send(to Addr, m Message) { e.Net.Send(to, m) }
