package scenarios

import (
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"

	"github.com/leasesim/leasesim/lease"
)

// This file tells the implementation's panics from the harness's by where
// they come from, never by their text. Every call from the harness into
// the implementation under test (its constructors, Deliver, the Holder,
// Grantor and Resource methods, the timer and failpoint continuations it
// hands over) goes through a boundary function that marks it as the
// implementation's; every call from the implementation back into the
// harness (its Env: clock, transport, storage, observer, failpoint, and
// the callbacks it was given) through one that marks it as the harness's.
// The innermost boundary on the panicking stack decides, so a harness
// callback that panics inside an implementation's call is still a harness
// bug. A panic under no boundary at all (the kernel's loop, the wiring, a
// workload, a checker) is a harness bug too.
//
// A boundary is known by its function (boundaries), not by a recover of
// its own: a deferred recover at every crossing cost a swarm run a few
// percent of its time, several crossings an event. The recovers are where
// a run is entered (Execute, runGuarded), which ask markPanic whose panic
// it is: the panicking frames are still on the stack while a deferred
// function runs.

// HarnessPanic is a panic of the harness itself (the kernel, this
// package's wiring, a workload, a checker), which Execute recovers and
// returns as its error. It is never blamed on the implementation: a CLI
// exits 3 for it, and a sweep stops. Find it with errors.As.
type HarnessPanic struct {
	// Value is what was passed to panic, such as a runtime.Error.
	Value any
	// Stack is the goroutine's stack where it panicked.
	Stack string
}

// Error says it is a harness bug, with the panic value.
func (p *HarnessPanic) Error() string { return fmt.Sprintf("harness bug: panic: %v", p.Value) }

// Unwrap returns the panic value when it is an error (a runtime.Error, for
// example), so that errors.Is and errors.As see through.
func (p *HarnessPanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// implPanic is a panic of the implementation under test, on its way up to
// runGuarded, which turns it into the "panic" property's violation.
type implPanic struct {
	value any
	stack string
}

// origin says whose code a boundary runs.
type origin bool

const (
	fromImpl    origin = true  // the implementation under test
	fromHarness origin = false // the harness
)

// markPanic returns the panic value r, recovered where a run is entered,
// as an *implPanic or a *HarnessPanic, by the innermost boundary on the
// stack it was raised on (boundaries): it must be called from the
// deferred function that recovered r.
func markPanic(r any) any {
	switch r.(type) {
	case *implPanic, *HarnessPanic:
		return r
	}
	stack := string(debug.Stack())
	if innermostBoundary() == fromImpl {
		return &implPanic{value: r, stack: stack}
	}
	return &HarnessPanic{Value: r, Stack: stack}
}

// innermostBoundary returns the origin of the innermost boundary function
// on the calling goroutine's stack, or fromHarness under none.
func innermostBoundary() origin {
	pcs := make([]uintptr, 4096)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	for {
		f, more := frames.Next()
		if o, ok := boundaries[f.Function]; ok {
			return o
		}
		if !more {
			return fromHarness
		}
	}
}

// boundaries maps each boundary function's name, as the runtime reports
// a frame of it, to whose code it runs.
var boundaries = func() map[string]origin {
	m := make(map[string]origin)
	mark := func(o origin, fs ...any) {
		for _, f := range fs {
			m[runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()] = o
		}
	}
	mark(fromImpl, implCall, guardedImpl.newGrantor, guardedImpl.newHolder, guardedImpl.newResource,
		guardedGrantor.Deliver, guardedResource.Deliver, guardedHolder.Deliver, guardedHolder.acquire,
		guardedHolder.Release, guardedHolder.Valid, guardedHolder.write, guardedHolder.checkpoint, guardedHolder.read,
		guardedHolder.SideEffect, guardedDeliverAny, describe,
		guardedLeader.Leading, guardedLeader.OnLeadership, guardedLeader.LeaderDeclaration)
	mark(fromHarness, harnessCall, guardedObserver.Observe, nodeClock.Now, nodeClock.AfterFunc,
		nodeClock.WallNow, (*nodeTimer).Stop, nodeTransport.Send, nodeTransport.SendAny,
		nodeStorage.Get, nodeStorage.Put, nodeStorage.Delete, nodeStorage.Sync, nodeFailpoints.hit)
	return m
}()

// asHarnessPanic returns the panic value r as a HarnessPanic: r itself if
// it is one, else a HarnessPanic of r (a panic under no boundary).
func asHarnessPanic(r any) *HarnessPanic {
	if hp, ok := r.(*HarnessPanic); ok {
		return hp
	}
	if ip, ok := r.(*implPanic); ok { // outside a run: cannot be judged as a verdict
		return &HarnessPanic{Value: fmt.Sprintf("the implementation panicked outside a run: %v", ip.value), Stack: ip.stack}
	}
	return &HarnessPanic{Value: r, Stack: string(debug.Stack())}
}

// implCall runs f, code of the implementation, behind a boundary.
func implCall(f func()) { f() }

// harnessCall runs f, code of the harness, behind a boundary.
func harnessCall(f func()) { f() }

// guardImpl returns impl with every constructor, and every node it
// builds, behind implementation boundaries.
func guardImpl(impl lease.Impl) lease.Impl {
	g, gi := impl, guardedImpl{&impl}
	g.NewGrantor, g.NewHolder, g.NewResource = gi.newGrantor, gi.newHolder, gi.newResource
	return g
}

// guardedImpl runs an implementation's constructors behind implementation
// boundaries and puts the nodes they build behind them too.
type guardedImpl struct{ impl *lease.Impl }

func (x guardedImpl) newGrantor(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
	node, err := x.impl.NewGrantor(env, cfg)
	if node == nil || err != nil {
		return node, err
	}
	return guardedGrantor{&grantorRef{node}}, x.speaks("grantor", node)
}

func (x guardedImpl) newHolder(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
	node, err := x.impl.NewHolder(env, cfg, grantor, resource)
	if node == nil || err != nil {
		return node, err
	}
	return guardedHolder{&holderRef{node}}, x.speaks("holder", node)
}

func (x guardedImpl) newResource(env lease.Env) (lease.Resource, error) {
	node, err := x.impl.NewResource(env)
	if node == nil || err != nil {
		return node, err
	}
	return guardedResource{&resourceRef{node}}, x.speaks("resource", node)
}

// speaks checks that a node the implementation built takes messages, and
// that a holder has what the implementation's capabilities declare: an
// implementation implements only what it speaks.
func (x guardedImpl) speaks(role string, node any) error {
	caps := x.impl.Capabilities
	_, checkpoints := node.(lease.Checkpointer)
	_, effects := node.(lease.Effector)
	_, reads := node.(lease.Reader)
	switch {
	case !lease.Receives(node):
		return fmt.Errorf("%s: its %s %T takes no messages (implement lease.Node, lease.AnyNode or both)", x.impl.Name, role, node)
	case role == "holder" && caps.Checkpoints && !checkpoints:
		return fmt.Errorf("%s declares checkpoints, but its holder %T has no Checkpoint (lease.Checkpointer)", x.impl.Name, node)
	case role == "holder" && caps.SideEffects && !effects:
		return fmt.Errorf("%s declares side effects, but its holder %T has no SideEffect (lease.Effector)", x.impl.Name, node)
	case role == "holder" && caps.Reads && !reads:
		return fmt.Errorf("%s declares reads, but its holder %T has no Read (lease.Reader)", x.impl.Name, node)
	}
	return nil
}

// The guarded nodes put the implementation's nodes behind implementation
// boundaries (and guardedHolder the callbacks the harness gives the holder
// behind harness boundaries); guardedObserver puts an observer (the
// harness's recorder, and a test's own) behind a harness boundary. Each is
// a single pointer, so the interface holding it calls its methods
// directly, not through a wrapper that copies every message (or event)
// once more.
type (
	guardedGrantor  struct{ *grantorRef }
	guardedResource struct{ *resourceRef }
	guardedHolder   struct{ *holderRef }
	guardedObserver struct{ *observerRef }

	grantorRef  struct{ g lease.Grantor }
	resourceRef struct{ r lease.Resource }
	holderRef   struct{ h lease.Holder }
	observerRef struct{ o lease.Observer }
)

func (x guardedGrantor) Deliver(from lease.Addr, m lease.Message) {
	deliverLease(x.g, from, m)
}

func (x guardedResource) Deliver(from lease.Addr, m lease.Message) {
	deliverLease(x.r, from, m)
}

func (x guardedHolder) Deliver(from lease.Addr, m lease.Message) {
	deliverLease(x.h, from, m)
}

// deliverLease hands one of leasesim's messages to node, which must take
// them (lease.Node): an implementation that speaks only its own protocol
// and is sent one of leasesim's has a bug, and the run says so.
func deliverLease(node any, from lease.Addr, m lease.Message) {
	n, ok := node.(lease.Node)
	if !ok {
		panic(fmt.Sprintf("a leasesim %s from %s reached %T, which takes only its own messages (implement lease.Node)",
			m.Kind, from, node))
	}
	n.Deliver(from, m)
}

func (x guardedHolder) Acquire(resource string, opts lease.AcquireOptions) {
	x.acquire(resource, guardAcquire(opts))
}

// acquire is Acquire with callbacks already behind their boundaries.
func (x guardedHolder) acquire(resource string, opts guardedAcquire) {
	x.h.Acquire(resource, opts.AcquireOptions)
}

// guardedAcquire is AcquireOptions whose callbacks are behind harness
// boundaries. Like guardedDone it keeps no state of its own, so a workload
// makes it once and hands it to every Acquire through holderAcquire.
type guardedAcquire struct{ lease.AcquireOptions }

// guardAcquire puts opts's callbacks behind harness boundaries.
func guardAcquire(opts lease.AcquireOptions) guardedAcquire {
	if f := opts.OnGrant; f != nil {
		opts.OnGrant = func(g lease.Grant) { harnessCall(func() { f(g) }) }
	}
	if f := opts.OnLost; f != nil {
		opts.OnLost = func(resource string, token uint64, err error) {
			harnessCall(func() { f(resource, token, err) })
		}
	}
	return guardedAcquire{opts}
}

// holderAcquire is h.Acquire with opts, whose callbacks are behind their
// boundaries already, handed over as they are rather than wrapped again.
func holderAcquire(h lease.Holder, resource string, opts guardedAcquire) {
	if g, ok := h.(guardedHolder); ok {
		g.acquire(resource, opts)
		return
	}
	h.Acquire(resource, opts.AcquireOptions)
}

func (x guardedHolder) Release(resource string) {
	x.h.Release(resource)
}

func (x guardedHolder) Valid(resource string) (lease.Grant, bool) {
	return x.h.Valid(resource)
}

func (x guardedHolder) Write(resource, key string, value []byte, done func(error)) {
	x.write(resource, key, value, guardDone(done))
}

func (x guardedHolder) Checkpoint(resource string, state []byte, done func(error)) {
	x.checkpoint(resource, state, guardDone(done))
}

// write is Write with a completion callback already behind its boundary.
func (x guardedHolder) write(resource, key string, value []byte, done guardedDone) {
	x.h.Write(resource, key, value, done)
}

// checkpoint is Checkpoint with a completion callback already behind its
// boundary.
func (x guardedHolder) checkpoint(resource string, state []byte, done guardedDone) {
	x.h.(lease.Checkpointer).Checkpoint(resource, state, done)
}

func (x guardedHolder) Read(resource, key string, done func([]byte, uint64, error)) {
	x.read(resource, key, guardRead(done))
}

// read is Read with a completion callback already behind its boundary.
func (x guardedHolder) read(resource, key string, done guardedRead) {
	x.h.(lease.Reader).Read(resource, key, done)
}

func (x guardedHolder) SideEffect(resource, id string) {
	x.h.(lease.Effector).SideEffect(resource, id)
}

// guardedDone is a harness completion callback behind a harness boundary.
// It keeps no state of its own, so one made once (per grant, per run) and
// handed to every action it completes, through holderWrite and
// holderCheckpoint, behaves exactly as a fresh one per action would, even
// for an implementation that calls it twice: the workloads' hot paths
// allocate no wrapper per write.
type guardedDone func(error)

// guardDone puts a harness completion callback behind a harness boundary.
func guardDone(done func(error)) guardedDone {
	if done == nil {
		return nil
	}
	return func(err error) { harnessCall(func() { done(err) }) }
}

// guardedRead is a harness read callback behind a harness boundary; like
// guardedDone it keeps no state, so a workload makes one per grant.
type guardedRead func([]byte, uint64, error)

// guardRead puts a harness read callback behind a harness boundary.
func guardRead(done func([]byte, uint64, error)) guardedRead {
	if done == nil {
		return nil
	}
	return func(v []byte, token uint64, err error) { harnessCall(func() { done(v, token, err) }) }
}

// holderRead is h's Read (lease.Reader) with done, which is behind its
// boundary already, handed over as it is rather than wrapped once more.
func holderRead(h lease.Holder, resource, key string, done guardedRead) {
	if g, ok := h.(guardedHolder); ok {
		g.read(resource, key, done)
		return
	}
	h.(lease.Reader).Read(resource, key, done)
}

// holderWrite is h.Write with done, which is behind its boundary already,
// handed over as it is rather than wrapped once more.
func holderWrite(h lease.Holder, resource, key string, value []byte, done guardedDone) {
	if g, ok := h.(guardedHolder); ok {
		g.write(resource, key, value, done)
		return
	}
	h.Write(resource, key, value, done)
}

// holderCheckpoint is h.Checkpoint with done, which is behind its boundary
// already, handed over as it is rather than wrapped once more.
func holderCheckpoint(h lease.Holder, resource string, state []byte, done guardedDone) {
	if g, ok := h.(guardedHolder); ok {
		g.checkpoint(resource, state, done)
		return
	}
	h.(lease.Checkpointer).Checkpoint(resource, state, done)
}

func (x guardedObserver) Observe(e lease.Event) {
	x.o.Observe(e)
}
