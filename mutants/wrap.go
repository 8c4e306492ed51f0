package mutants

import (
	"slices"
	"strings"

	"github.com/leasesim/leasesim/lease"
)

// The building blocks every mutant is made of. Each wraps one seam of
// lease.Env or of a node, so that a mutant file says only what it breaks.

// hasPrefix returns a key predicate for volatileStore.
func hasPrefix(prefix string) func(string) bool {
	return func(key string) bool { return strings.HasPrefix(key, prefix) }
}

// volatileStore is a lease.Storage in which the keys that volatile selects
// live in memory only. Mutant constructors run on every boot of their node
// and make a fresh volatileStore each time, so those keys vanish on a crash
// or restart, while every other key stays in the node's durable store.
type volatileStore struct {
	durable  lease.Storage
	volatile func(key string) bool
	mem      map[string][]byte // looked up, never iterated
}

func newVolatileStore(durable lease.Storage, volatile func(key string) bool) *volatileStore {
	return &volatileStore{durable: durable, volatile: volatile, mem: make(map[string][]byte)}
}

// Get returns a copy of the latest value of key.
func (s *volatileStore) Get(key string) ([]byte, bool) {
	if !s.volatile(key) {
		return s.durable.Get(key)
	}
	v, ok := s.mem[key]
	return slices.Clone(v), ok
}

// Put writes a copy of value; a volatile key is "durable" at once, in memory.
func (s *volatileStore) Put(key string, value []byte) {
	if !s.volatile(key) {
		s.durable.Put(key, value)
		return
	}
	s.mem[key] = slices.Clone(value)
}

// Delete removes key.
func (s *volatileStore) Delete(key string) {
	if !s.volatile(key) {
		s.durable.Delete(key)
		return
	}
	delete(s.mem, key)
}

// Sync syncs the durable store; volatile keys have nothing to sync.
func (s *volatileStore) Sync() error { return s.durable.Sync() }

// interceptor sits between a server node (a grantor or a resource) and the
// network. It rewrites each request before the node sees it, and the reply
// the node sends while it handles that request. The nodes of package lease
// reply synchronously inside Deliver, with at most one message, which is
// what lets the interceptor pair a reply with its request without a table.
// The recorder of package scenarios sits on the transport inside the
// interceptor, so a history shows the rewritten reply: what the client
// really got.
type interceptor struct {
	net lease.Transport // the node's real transport
	// request rewrites a request before the node sees it; nil leaves it.
	request func(m lease.Message) lease.Message
	// reply rewrites the reply to req, the request as the client sent it
	// (with Client defaulting to the sender, as the grantor reads it); nil
	// leaves it.
	reply func(req, rep lease.Message) lease.Message

	handling *lease.Message // the request being handled, as the client sent it
	replied  bool           // a reply to it was sent already
}

// Send rewrites the reply to the request being handled, and sends.
func (ic *interceptor) Send(to lease.Addr, m lease.Message) {
	if req := ic.handling; req != nil && ic.reply != nil && m.Kind == req.Kind.Reply() {
		if ic.replied {
			panic("mutants: invariant one-reply-per-request: " + req.Kind.String() + " answered twice")
		}
		ic.replied = true
		m = ic.reply(*req, m)
	}
	ic.net.Send(to, m)
}

// ownHolder is leasesim's own holder as a mutant wraps it: every method
// the harness may call (lease.Holder is only what every implementation
// must have).
type ownHolder interface {
	lease.Holder
	lease.Node
	lease.Checkpointer
	lease.Effector
	lease.Reader
}

// deliver hands m, rewritten, to node, and watches the reply go out.
func (ic *interceptor) deliver(node lease.Node, from lease.Addr, m lease.Message) {
	if ic.handling != nil {
		panic("mutants: invariant deliver-not-reentrant: " + m.Kind.String() + " while handling " + ic.handling.Kind.String())
	}
	req := m
	if req.Client == "" {
		req.Client = from
	}
	if ic.request != nil {
		m = ic.request(m)
	}
	ic.handling, ic.replied = &req, false
	defer func() { ic.handling = nil }()
	node.Deliver(from, m)
}

// interceptedGrantor is a grantor behind an interceptor.
type interceptedGrantor struct {
	lease.Grantor
	ic *interceptor
}

// Deliver passes m through the interceptor.
func (g interceptedGrantor) Deliver(from lease.Addr, m lease.Message) {
	g.ic.deliver(g.Grantor.(lease.Node), from, m)
}

// Lookup is the wrapped grantor's (lease.LeaseLookup).
func (g interceptedGrantor) Lookup(resource string) (lease.LeaseInfo, bool) {
	return g.Grantor.(lease.LeaseLookup).Lookup(resource)
}

// newInterceptedGrantor boots lease.NewGrantor on env behind ic.
func newInterceptedGrantor(env lease.Env, cfg lease.Config, ic *interceptor) (lease.Grantor, error) {
	ic.net = env.Net
	env.Net = ic
	g, err := lease.NewGrantor(env, cfg)
	if err != nil {
		return nil, err
	}
	return interceptedGrantor{Grantor: g, ic: ic}, nil
}

// interceptedResource is a fenced resource behind an interceptor.
type interceptedResource struct {
	lease.Resource
	ic *interceptor
}

// Deliver passes m through the interceptor.
func (r interceptedResource) Deliver(from lease.Addr, m lease.Message) {
	r.ic.deliver(r.Resource.(lease.Node), from, m)
}

// Highest is the wrapped store's (lease.FenceLookup).
func (r interceptedResource) Highest(resource string) uint64 {
	return r.Resource.(lease.FenceLookup).Highest(resource)
}

// Effects is the wrapped store's (lease.FenceLookup).
func (r interceptedResource) Effects(resource, id string) int {
	return r.Resource.(lease.FenceLookup).Effects(resource, id)
}

// newInterceptedResource boots lease.NewResource on env behind ic.
func newInterceptedResource(env lease.Env, ic *interceptor) (lease.Resource, error) {
	ic.net = env.Net
	env.Net = ic
	r, err := lease.NewResource(env)
	if err != nil {
		return nil, err
	}
	return interceptedResource{Resource: r, ic: ic}, nil
}

// restoreRequest puts the client's own view of the request back into a
// reply whose request the interceptor rewrote: its ReqID, Client and
// Token, so that the client, and the history, pair the reply with what was
// sent.
func restoreRequest(req, rep lease.Message) lease.Message {
	rep.ReqID, rep.Client, rep.Token = req.ReqID, req.Client, req.Token
	return rep
}

// transportFunc is a lease.Transport made of a function.
type transportFunc func(to lease.Addr, m lease.Message)

// Send calls f.
func (f transportFunc) Send(to lease.Addr, m lease.Message) { f(to, m) }

// observerFunc is a lease.Observer made of a function.
type observerFunc func(ev lease.Event)

// Observe calls f.
func (f observerFunc) Observe(ev lease.Event) { f(ev) }
