package lease_test

import (
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
)

// Node addresses used by the tests.
const (
	grantorAddr  lease.Addr = "grantor"
	resourceAddr lease.Addr = "store"
)

// testConfig is the config most tests use: validity 9.8s, grantor hold
// 10.1s, renewal every 3.33s.
func testConfig() lease.Config {
	return lease.Config{TTL: 10 * time.Second, Rho: 0.01, Margin: 100 * time.Millisecond}.WithDefaults()
}

// recorder is an Observer that keeps every event.
type recorder struct{ events []lease.Event }

func (r *recorder) Observe(ev lease.Event) { r.events = append(r.events, ev) }

// count returns how many events of kind the node emitted.
func (r *recorder) count(node lease.Addr, kind lease.EventKind) int {
	n := 0
	for _, ev := range r.events {
		if ev.Node == node && ev.Kind == kind {
			n++
		}
	}
	return n
}

// probe is a node that records every message it receives.
type probe struct{ got []lease.Message }

func (p *probe) Deliver(_ lease.Addr, m lease.Message) { p.got = append(p.got, m) }

// testingT is what fixtures need from *testing.T and *rapid.T.
type testingT interface {
	Helper()
	Errorf(format string, args ...any)
	FailNow()
}

// fixture is a world with a grantor and a fenced resource.
// inspectableGrantor and inspectableResource are this package's nodes,
// whose records the tests look into.
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

type fixture struct {
	t       testingT
	w       *leasetest.World
	cfg     lease.Config
	obs     *recorder
	g       inspectableGrantor
	r       inspectableResource
	probes  map[lease.Addr]*probe
	nextReq uint64
}

func newFixture(t testingT, cfg lease.Config) *fixture {
	t.Helper()
	f := &fixture{t: t, w: leasetest.NewWorld(), cfg: cfg, obs: &recorder{}, probes: map[lease.Addr]*probe{}}
	f.bootGrantor()
	r, err := lease.NewResource(f.env(resourceAddr))
	require.NoError(t, err)
	f.r = r.(inspectableResource)
	f.w.Register(resourceAddr, r)
	return f
}

func (f *fixture) env(self lease.Addr) lease.Env {
	env := f.w.Env(self, 1)
	env.Observer = f.obs
	return env
}

// bootGrantor (re)boots the grantor on its durable store.
func (f *fixture) bootGrantor() {
	f.t.Helper()
	g, err := lease.NewGrantor(f.env(grantorAddr), f.cfg)
	require.NoError(f.t, err)
	f.g = g.(inspectableGrantor)
	f.w.Register(grantorAddr, g)
}

// restartGrantor crashes the grantor and boots it again.
func (f *fixture) restartGrantor() {
	f.w.Crash(grantorAddr)
	f.bootGrantor()
}

// holder boots a holder at self.
func (f *fixture) holder(self lease.Addr) lease.Holder {
	f.t.Helper()
	h, err := lease.NewHolder(f.env(self), f.cfg, grantorAddr, resourceAddr)
	require.NoError(f.t, err)
	f.w.Register(self, h)
	return h
}

// call sends m from the client at from to the node at to and returns the
// reply. It fails the test if there is none.
func (f *fixture) call(from, to lease.Addr, m lease.Message) lease.Message {
	f.t.Helper()
	p := f.probes[from]
	if p == nil {
		p = &probe{}
		f.probes[from] = p
		f.w.Register(from, p)
	}
	f.nextReq++
	m.ReqID = f.nextReq
	if m.Client == "" {
		m.Client = from
	}
	f.w.Send(from, to, m)
	f.w.Settle()
	for _, r := range p.got {
		if r.ReqID == m.ReqID && r.Kind == m.Kind.Reply() {
			return r
		}
	}
	require.FailNowf(f.t, "no reply", "%v from %s to %s", m.Kind, from, to)
	return lease.Message{}
}

// acquire asks the grantor for resource on behalf of client.
func (f *fixture) acquire(client lease.Addr, resource string, ttl time.Duration) lease.Message {
	return f.call(client, grantorAddr, lease.Message{Kind: lease.KindAcquire, Resource: resource, TTL: ttl, SentAt: f.w.Now()})
}

// grantorReq sends a request of kind with token to the grantor.
func (f *fixture) grantorReq(client lease.Addr, kind lease.Kind, resource string, token uint64) lease.Message {
	return f.call(client, grantorAddr, lease.Message{Kind: kind, Resource: resource, Token: token})
}
