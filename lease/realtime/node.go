package realtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/leasesim/leasesim/lease"
)

// Options configures one node.
type Options struct {
	// Addr is the TCP address to listen on, for example "127.0.0.1:0" for
	// any free port. The node's lease.Addr is the address actually bound.
	Addr string
	// Config is the lease configuration (grantor and holders).
	Config lease.Config
	// Store is the node's durable storage; nil means a new MemStorage.
	Store lease.Storage
	// Observer receives lifecycle events on the node's loop; nil for none.
	Observer lease.Observer
	// Failpoint, if set, is called on the node's loop at each named point
	// (see lease.Env). Blocking in it pauses the whole node, like a long GC
	// pause; it must eventually call then, or never to model a crash.
	Failpoint func(name string, then func())
	// Impl is the implementation to run; the zero value means
	// lease.Correct().
	Impl lease.Impl
	// Seed seeds the node's random source; zero means a random seed.
	Seed uint64
	// Recorder, if set, records what the node sends, receives and
	// believes into the run's history (one Recorder for every node of a
	// run; see Recorder).
	Recorder *Recorder
}

// localAddr is where replies to requests made through a node's own API go:
// they never touch the network.
const localAddr lease.Addr = "realtime:local"

// node runs one lease node: a loop, a clock, a transport and the core.
type node struct {
	loop  *loop
	clock *clock
	net   *tcpTransport
	env   lease.Env
	core  lease.Node
	rec   *Recorder // nil when not recording

	waiting map[uint64]chan lease.Message // local requests by ReqID; loop only
	reqID   uint64                        // last local ReqID; loop only
	once    sync.Once
	err     error
}

// startNode listens, builds the core on the loop with build, and starts
// serving.
func startNode(opts Options, build func(lease.Impl, lease.Env) (lease.Node, error)) (*node, error) {
	t, err := listen(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("realtime: listen on %q: %w", opts.Addr, err)
	}
	l := newLoop()
	n := &node{loop: l, clock: newClock(l), net: t, waiting: make(map[uint64]chan lease.Message), rec: opts.Recorder}
	n.env = n.makeEnv(opts)
	impl := opts.Impl.OrCorrect()
	if doErr := l.do(context.Background(), func() { n.core, err = build(impl, n.env) }); doErr != nil {
		err = doErr
	}
	if err != nil {
		n.shutdown(false)
		return nil, fmt.Errorf("realtime: start %s: %w", t.self, err)
	}
	t.serve(func(from lease.Addr, m lease.Message) {
		l.post(func() {
			n.core.Deliver(from, m)
			n.rec.delivered(from, t.self, m)
		}, true)
	})
	return n, nil
}

func (n *node) makeEnv(opts Options) lease.Env {
	store := opts.Store
	if store == nil {
		store = NewMemStorage()
	}
	seed := opts.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	observer := opts.Observer
	if n.rec != nil {
		observer = recordingObserver{r: n.rec, self: n.net.self, clock: n.clock, next: opts.Observer}
	}
	return lease.Env{
		Self:      n.net.self,
		Clock:     n.clock,
		Wall:      n.clock,
		Net:       localRouter{n},
		Store:     store,
		Rand:      rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		Observer:  observer,
		Failpoint: opts.Failpoint,
	}
}

// Addr returns the address the node listens on.
func (n *node) Addr() lease.Addr { return n.net.self }

// call delivers request m to the node's own core, as if from a local
// client, and waits for the reply.
func (n *node) call(ctx context.Context, m lease.Message) (lease.Message, error) {
	reply := make(chan lease.Message, 1)
	var id uint64
	err := n.loop.do(ctx, func() {
		n.reqID++
		id = n.reqID
		m.ReqID = id
		n.waiting[id] = reply
		n.core.Deliver(localAddr, m)
	})
	if err != nil {
		return lease.Message{}, err
	}
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		n.loop.post(func() { delete(n.waiting, id) }, false)
		return lease.Message{}, ctx.Err()
	case <-n.loop.done:
		return lease.Message{}, ErrClosed
	}
}

// shutdown stops the loop, the timers and the transport, once. Graceful,
// messages already queued (releases) are still sent.
func (n *node) shutdown(graceful bool) error {
	n.once.Do(func() {
		if !graceful {
			n.rec.crashed(n.net.self) // a crash ends what the node believed
		}
		n.loop.stop()
		n.clock.stopAll()
		n.err = n.net.close(graceful)
	})
	return n.err
}

// localRouter is the core's transport: replies to local requests go to
// their waiter, everything else to the network.
type localRouter struct{ n *node }

// Send routes m; it runs on the loop.
func (r localRouter) Send(to lease.Addr, m lease.Message) {
	if to != localAddr {
		r.n.rec.sending(r.n.net.self, to, m)
		r.n.net.Send(to, m)
		return
	}
	if ch, ok := r.n.waiting[m.ReqID]; ok {
		delete(r.n.waiting, m.ReqID)
		ch <- m
	}
}
