package robustness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"go.etcd.io/etcd/tests/v3/robustness/client"
	"go.etcd.io/etcd/tests/v3/robustness/identity"
	"go.etcd.io/etcd/tests/v3/robustness/report"
	"go.etcd.io/etcd/tests/v3/robustness/traffic"
	"go.etcd.io/etcd/tests/v3/robustness/validate"
)

// LeaseTTL is the TTL the traffic grants its leases: etcd's robustness
// traffic's (traffic.DefaultLeaseTTL, two hours). etcd's model does not
// expire leases, so a run must end long before one could expire; the
// recorded format does not carry the TTL, so the conversion is given it.
var LeaseTTL = time.Duration(traffic.DefaultLeaseTTL) * time.Second

// Request is one kind of request the lease traffic sends.
type Request string

// The lease traffic's requests: those of etcd's EtcdPutDeleteLease traffic
// (traffic/etcd.go) that the lessor specification models, sent through
// the same RecordingClient calls. Its deletes, multi-operation and
// compare-and-set transactions, range lists and stale reads are left out:
// the lessor specification has no delete, no multi-key transaction and no
// read at a past revision, so it could not judge a history that has them.
const (
	// Get reads one key (a linearizable Range of one key).
	Get Request = "get"
	// Put writes a key attached to no lease.
	Put Request = "put"
	// PutWithLease writes a key attached to the client's lease, granting
	// one first (LeaseGrant) if the client has none, as etcd's traffic does.
	PutWithLease Request = "putWithLease"
	// LeaseRevoke revokes the client's lease; it keeps the lease if the
	// revoke failed, as etcd's traffic does.
	LeaseRevoke Request = "leaseRevoke"
)

// Mix is the traffic's request mix: how often each request is drawn, out
// of the sum of the weights. Leases are weighted up against etcd's mix
// (5% puts with a lease, 5% revokes) so that a short run holds many.
var Mix = []struct {
	Request Request
	Weight  int
}{{Get, 35}, {Put, 20}, {PutWithLease, 30}, {LeaseRevoke, 15}}

// TrafficConfig is one run of the lease traffic.
type TrafficConfig struct {
	// Endpoints are the members' client URLs. MemberClients clients each
	// dial one member (round robin) and ClusterClients dial them all, as
	// etcd's traffic has them (6 and 2 there).
	Endpoints                     []string
	MemberClients, ClusterClients int
	// Duration is how long the clients send requests; QPS caps the rate
	// over all of them (etcd's traffic: 100 to 1000).
	Duration time.Duration
	QPS      float64
}

// Record sends the lease traffic to a fresh, empty etcd cluster and returns
// what each of etcd's RecordingClients recorded, in etcd's own format
// (report.ClientReport). It first checks that the store is empty (checkEmpty):
// etcd's model starts from revision 1. Requests time out after etcd's
// traffic.RequestTimeout; a failed request is recorded as failed, and the
// client goes on. Every client is closed when Record returns.
func Record(ctx context.Context, cfg TrafficConfig) ([]report.ClientReport, error) {
	if len(cfg.Endpoints) == 0 || cfg.MemberClients+cfg.ClusterClients == 0 || cfg.Duration <= 0 || cfg.QPS <= 0 {
		return nil, errors.New("robustness: traffic needs endpoints, clients, a duration and a rate")
	}
	set := client.NewSet(identity.NewIDProvider(), time.Now())
	defer set.Close()
	if err := checkEmpty(ctx, set, cfg.Endpoints); err != nil {
		return nil, err
	}
	loop := leaseLoop{ids: set.IdentityProvider(), leases: identity.NewLeaseIDStorage(),
		keys: traffic.NewKeyStore(10, "key"), limiter: rate.NewLimiter(rate.Limit(cfg.QPS), 1)}
	tctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	var wg sync.WaitGroup
	for i := range cfg.MemberClients + cfg.ClusterClients {
		eps := cfg.Endpoints
		if i < cfg.MemberClients {
			eps = []string{cfg.Endpoints[i%len(cfg.Endpoints)]}
		}
		c, err := set.NewClient(eps)
		if err != nil {
			cancel()
			wg.Wait()
			return nil, fmt.Errorf("robustness: client %d: %w", i, err)
		}
		wg.Go(func() { loop.run(tctx, c) })
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("robustness: traffic: %w", err)
	}
	return set.Reports(), nil
}

// checkEmpty reads a key through a recording client until a read succeeds,
// and refuses a store whose revision is not 1, as etcd's
// traffic.CheckEmptyDatabaseAtStart does (whose retries do not stop when
// ctx ends): etcd's validation needs that read (ErrNotEmptyDatabase).
func checkEmpty(ctx context.Context, set *client.ClientSet, endpoints []string) error {
	c, err := set.NewClient(endpoints)
	if err != nil {
		return fmt.Errorf("robustness: first client: %w", err)
	}
	for attempt := 0; ; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, traffic.RequestTimeout)
		resp, err := c.Get(rctx, "key")
		cancel()
		switch {
		case err == nil && resp.Header.Revision != 1:
			return fmt.Errorf("robustness: the store is at revision %d, not 1: %w", resp.Header.Revision,
				validate.ErrNotEmptyDatabase)
		case err == nil:
			return nil
		case ctx.Err() != nil || attempt == 50:
			return fmt.Errorf("robustness: no first read of the store: %w", err)
		}
	}
}

// leaseLoop is what the clients of one run share: etcd's identity
// provider, its lease-id storage (each client's current lease), its key
// store (key0..key9) and the rate limiter.
type leaseLoop struct {
	ids     identity.Provider
	leases  identity.LeaseIDStorage
	keys    interface{ GetKey() string }
	limiter *rate.Limiter
}

// run sends requests from c until ctx ends. After a failed request the
// next one is a read, as etcd's loop does after a failure, so that failed
// writes do not come in a row.
func (l leaseLoop) run(ctx context.Context, c *client.RecordingClient) {
	ok := true
	for l.limiter.Wait(ctx) == nil {
		req := Get
		if ok {
			req = pick(rand.IntN(total()))
		}
		ok = l.send(ctx, c, req) == nil
	}
}

func total() int {
	n := 0
	for _, m := range Mix {
		n += m.Weight
	}
	return n
}

// pick returns the request whose weight band holds n.
func pick(n int) Request {
	for _, m := range Mix {
		if n < m.Weight {
			return m.Request
		}
		n -= m.Weight
	}
	panic("robustness: pick-in-range: n is beyond the weights")
}

// send sends one request through c, each with etcd's request timeout.
func (l leaseLoop) send(ctx context.Context, c *client.RecordingClient, req Request) error {
	rctx, cancel := context.WithTimeout(ctx, traffic.RequestTimeout)
	defer cancel()
	value := func() string { return fmt.Sprint(l.ids.NewRequestID()) }
	switch req {
	case Get:
		_, err := c.Get(rctx, l.keys.GetKey())
		return err
	case Put:
		_, err := c.Put(rctx, l.keys.GetKey(), value())
		return err
	case LeaseRevoke:
		id := l.leases.LeaseID(c.ID)
		if id == 0 {
			return nil
		}
		_, err := c.LeaseRevoke(rctx, id)
		if err == nil {
			l.leases.RemoveLeaseID(c.ID)
		}
		return err
	}
	id := l.leases.LeaseID(c.ID)
	if id == 0 {
		resp, err := c.LeaseGrant(rctx, int64(LeaseTTL/time.Second))
		if err != nil {
			return err
		}
		id = int64(resp.ID)
		l.leases.AddLeaseID(c.ID, id)
		cancel()
		if err := l.limiter.Wait(ctx); err != nil {
			return nil // the run ended
		}
		rctx, cancel = context.WithTimeout(ctx, traffic.RequestTimeout)
		defer cancel()
	}
	_, err := c.PutWithLease(rctx, l.keys.GetKey(), value(), id)
	return err
}
