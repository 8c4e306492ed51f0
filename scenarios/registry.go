package scenarios

import (
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// registryPrefix is the key prefix of service registrations.
const registryPrefix = "svc/"

// startRegistrant holds a lease on its own service and attaches its
// registration to it, so the registration vanishes when the lease does.
func startRegistrant(n *sim.Node, h lease.Holder) {
	key := registryPrefix + n.Name()
	h.Acquire(key, lease.AcquireOptions{Keys: []lease.KV{{Key: key, Value: []byte(n.Name())}}})
}

// reader polls the registry: it lists the live registrations every poll.
// What it sees is recorded as sightings when the grantor answers.
type reader struct {
	n        *sim.Node
	env      lease.Env
	reqID    uint64
	load     RegistryLoad
	pollTime func() // list, bound once: the timer of every poll
}

func startReader(n *sim.Node, env lease.Env, load RegistryLoad) lease.Node {
	r := &reader{n: n, env: env, load: load}
	r.pollTime = r.list
	r.list()
	return r
}

func (r *reader) list() {
	r.reqID++
	r.env.Net.Send(GrantorNode, lease.Message{Kind: lease.KindList, ReqID: r.reqID, Client: r.env.Self,
		Prefix: registryPrefix, SentAt: r.env.Clock.Now()})
	r.n.SetTimer(r.load.Poll, r.pollTime)
}

// Deliver receives list replies; the recorder has already seen them.
func (r *reader) Deliver(lease.Addr, lease.Message) {}
