package mutants

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
)

// The addresses of a test world.
const (
	grantorAddr  lease.Addr = "grantor"
	resourceAddr lease.Addr = "store"
)

// testConfig is the lease configuration of the unit tests: round numbers,
// so the expected deadlines can be read off.
func testConfig() lease.Config {
	return lease.Config{TTL: 10 * time.Second, Rho: 0.05, Margin: 100 * time.Millisecond}.WithDefaults()
}

// mustLookup returns the mutant called name (without the prefix).
func mustLookup(t *testing.T, name string) lease.Impl {
	t.Helper()
	impl, err := Lookup(Prefix + name)
	require.NoError(t, err)
	return impl
}

// contrast runs body once against the correct implementation and once
// against the mutant, as subtests, so every unit test shows both sides:
// what the correct implementation does and what the mutant breaks.
func contrast(t *testing.T, name string, body func(t *testing.T, f *fixture, broken bool), opts ...fixtureOption) {
	t.Helper()
	for _, tc := range []struct {
		impl   lease.Impl
		broken bool
	}{{lease.Correct(), false}, {mustLookup(t, name), true}} {
		t.Run(tc.impl.Name, func(t *testing.T) { body(t, newFixture(t, tc.impl, opts...), tc.broken) })
	}
}

// fixtureOption changes a fixture before its nodes boot.
type fixtureOption func(*fixture)

// withSteppedWall gives the grantor a wall clock the test can step.
func withSteppedWall() fixtureOption {
	return func(f *fixture) {
		f.wall = &steppedWall{}
		f.grantorEnv = func(env *lease.Env) {
			f.wall.inner = env.Wall
			env.Wall = f.wall
		}
	}
}

// withoutWall gives the grantor no wall clock.
func withoutWall() fixtureOption {
	return func(f *fixture) { f.grantorEnv = func(env *lease.Env) { env.Wall = nil } }
}

// fixture is a leasetest world with a grantor and a resource of one
// implementation, and raw clients that send requests by hand.
type fixture struct {
	t       *testing.T
	w       *leasetest.World
	impl    lease.Impl
	cfg     lease.Config
	g       inspectableGrantor
	r       inspectableResource
	clients map[lease.Addr]*client
	seed    uint64
	// grantorEnv, if set, changes the grantor's environment at every boot.
	grantorEnv func(*lease.Env)
	wall       *steppedWall // the grantor's wall clock, withSteppedWall
}

// inspectableGrantor and inspectableResource are leasesim's own nodes (and
// every mutant's), whose records the tests look into.
type (
	inspectableGrantor interface {
		lease.Grantor
		lease.LeaseLookup
	}
	inspectableResource interface {
		lease.Resource
		lease.FenceLookup
	}
)

func newFixture(t *testing.T, impl lease.Impl, opts ...fixtureOption) *fixture {
	f := &fixture{t: t, w: leasetest.NewWorld(), impl: impl, cfg: testConfig(), clients: make(map[lease.Addr]*client)}
	for _, o := range opts {
		o(f)
	}
	f.bootGrantor(f.env(grantorAddr))
	r, err := impl.NewResource(f.env(resourceAddr))
	require.NoError(t, err)
	f.r = r.(inspectableResource)
	f.w.Register(resourceAddr, r)
	return f
}

// env returns a fresh environment for a new incarnation of the node at self.
func (f *fixture) env(self lease.Addr) lease.Env {
	f.seed++
	return f.w.Env(self, f.seed)
}

// bootGrantor boots (or reboots) the grantor on env.
func (f *fixture) bootGrantor(env lease.Env) {
	if f.grantorEnv != nil {
		f.grantorEnv(&env)
	}
	g, err := f.impl.NewGrantor(env, f.cfg)
	require.NoError(f.t, err)
	f.g = g.(inspectableGrantor)
	f.w.Register(grantorAddr, g)
}

// restartGrantor crashes the grantor and boots a new incarnation of it.
func (f *fixture) restartGrantor() {
	f.w.Crash(grantorAddr)
	f.bootGrantor(f.env(grantorAddr))
}

// holder boots a holder of the implementation at self.
func (f *fixture) holder(self lease.Addr) lease.Holder {
	h, err := f.impl.NewHolder(f.env(self), f.cfg, grantorAddr, resourceAddr)
	require.NoError(f.t, err)
	f.w.Register(self, h)
	return h
}

// client is a node that records the replies it receives.
type client struct {
	got    []lease.Message
	nextID uint64 // request ids increase, as a holder's do
}

func (c *client) Deliver(_ lease.Addr, m lease.Message) { c.got = append(c.got, m) }

// call sends m from the raw client at from to the node at to, settles the
// network, and returns the one reply.
func (f *fixture) call(from, to lease.Addr, m lease.Message) lease.Message {
	f.t.Helper()
	c := f.clients[from]
	if c == nil {
		c = &client{}
		f.clients[from] = c
		f.w.Register(from, c)
	}
	c.got = c.got[:0]
	m.Client = from
	c.nextID++
	m.ReqID = c.nextID
	f.w.Send(from, to, m)
	f.w.Settle()
	require.Len(f.t, c.got, 1, "replies to %s", m.Kind)
	require.Equal(f.t, m.Kind.Reply(), c.got[0].Kind)
	return c.got[0]
}

// acquire asks the grantor for resource on behalf of from.
func (f *fixture) acquire(from lease.Addr, resource string) lease.Message {
	f.t.Helper()
	return f.call(from, grantorAddr, lease.Message{Kind: lease.KindAcquire, Resource: resource, TTL: f.cfg.TTL})
}

// tokenAction sends a request of kind under token on behalf of from.
func (f *fixture) tokenAction(from lease.Addr, kind lease.Kind, resource string, token uint64) lease.Message {
	f.t.Helper()
	return f.call(from, grantorAddr, lease.Message{Kind: kind, Resource: resource, Token: token})
}

// expire moves time past every lease's expiry on the grantor.
func (f *fixture) expire() { f.w.Advance(f.cfg.GrantorHold(f.cfg.TTL) + time.Millisecond) }
