package checker_test

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
)

// The grantor granted h2 a lease on "jobs" while h1's grant was still in
// force on the grantor's own clock: no order of the two operations is a
// legal run of the lease store.
func ExampleLinearizability() {
	const ttl = 5 * time.Second // held for exactly the TTL: a grant at g holds until g+5s
	grant := func(client string, call, processed, ret time.Duration, token uint64) history.Operation {
		return history.Operation{Client: client, Server: "grantor", Call: history.Time(call),
			Processed: history.Time(processed), Return: history.Time(ret),
			Input: history.Payload{Kind: "acquire", Resource: "jobs", Holder: client, TTL: ttl},
			Output: history.Payload{Kind: "acquire_reply", Resource: "jobs", Holder: client, Token: token, TTL: ttl,
				OK: true, Clock: processed}}
	}
	h := &history.History{Spec: "lease-store", Lease: history.Lease{TTL: ttl}, Grantor: "grantor", Resource: "store",
		End: history.Time(time.Minute)}
	h.SetOps([]history.Operation{
		grant("h1", 0, 100*time.Millisecond, 200*time.Millisecond, 1),
		grant("h2", 2*time.Second, 3*time.Second, 4*time.Second, 2),
	})
	r := checker.Linearizability(h, checker.Options{})
	fmt.Println(r.Property, r.Status)
	fmt.Println(r.Violations[0].Detail)
	// Output:
	// P3 violated
	// lease store "jobs": acquire(h2, ttl 5s) -> tok 2 at grantor clock 3s cannot be linearised: granted tok 2 to h2 at grantor clock 3s, but h1 holds tok 1 until grantor clock 5.1s
}
