package checker_test

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
)

// The grantor granted h2 a lease on "jobs" while h1's grant was still in
// force on the grantor's own clock: no order of the two operations is a
// legal run of the lease store.
func ExampleLinearizability() {
	cfg := lease.Config{TTL: 5 * time.Second}.WithDefaults() // rho 0: a grant at g holds until g+5s
	grant := func(client string, call, processed, ret time.Duration, token uint64) history.Op {
		in := lease.Message{Kind: lease.KindAcquire, Client: lease.Addr(client), Resource: "jobs", TTL: cfg.TTL}
		out := lease.Message{Kind: lease.KindAcquireReply, Client: in.Client, Resource: "jobs", Token: token,
			TTL: cfg.TTL, Holder: in.Client, GrantorTime: processed}
		return history.Op{Client: client, Server: "grantor", Call: history.Time(call), Processed: history.Time(processed),
			Return: history.Time(ret), In: in, Out: out}
	}
	h := &history.History{Lease: leasewire.Lease(cfg), Grantor: "grantor", Resource: "store", End: history.Time(time.Minute),
		Ops: []history.Op{
			grant("h1", 0, 100*time.Millisecond, 200*time.Millisecond, 1),
			grant("h2", 2*time.Second, 3*time.Second, 4*time.Second, 2),
		}}
	r := checker.Linearizability(h, checker.Options{})
	fmt.Println(r.Property, r.Status)
	fmt.Println(r.Violations[0].Detail)
	// Output:
	// P3 violated
	// lease store "jobs": acquire(h2, ttl 5s) -> tok 2 at grantor clock 3s cannot be linearised: granted tok 2 to h2 at grantor clock 3s, but h1 holds tok 1 until grantor clock 5.1s
}
