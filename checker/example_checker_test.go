package checker_test

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
)

// Kleppmann's story as a recorded history: h1 holds the lock and pauses,
// its lease expires, h2 acquires it and writes, and h1 wakes up believing
// it still holds the lock. Exclusivity (P1) catches the overlap; fencing
// (P2) holds because the store rejected h1's stale write.
func Example_kleppmann() {
	s := func(sec float64) history.Time { return history.Time(sec * float64(time.Second)) }
	op := func(client, server string, t history.Time, in, out history.Payload) history.Operation {
		return history.Operation{Client: client, Server: server, Call: t, Processed: t, Return: t, Input: in, Output: out}
	}
	h := &history.History{
		Spec:    "lease-store",
		Lease:   history.Lease{TTL: 5 * time.Second, RhoPPB: 10_000_000, HoldPPB: 10_000_000},
		Grantor: "grantor", Resource: "store",
		Beliefs: []history.BeliefInterval{
			{Holder: "h1", Resource: "lock", Token: 1, Start: s(0), End: s(10), Reason: history.EndFenced, LastAct: s(10)},
			{Holder: "h2", Resource: "lock", Token: 2, Start: s(6), End: s(11), Reason: history.EndRun, LastAct: s(6.1)},
		},
		End: s(11),
	}
	h.SetOps([]history.Operation{
		op("h1", "grantor", s(0), history.Payload{Kind: "acquire", Resource: "lock", Holder: "h1"},
			history.Payload{Kind: "acquire_reply", Resource: "lock", Token: 1, OK: true}),
		op("h2", "grantor", s(6), history.Payload{Kind: "acquire", Resource: "lock", Holder: "h2"},
			history.Payload{Kind: "acquire_reply", Resource: "lock", Token: 2, OK: true}),
		op("h2", "store", s(6.1), history.Payload{Kind: "write", Resource: "lock", Holder: "h2", Token: 2},
			history.Payload{Kind: "write_reply", Resource: "lock", OK: true}),
		op("h1", "store", s(10), history.Payload{Kind: "write", Resource: "lock", Holder: "h1", Token: 1},
			history.Payload{Kind: "write_reply", Resource: "lock", Err: "fenced"}),
	})
	p1 := checker.Exclusivity(h)
	fmt.Println(p1.Property, p1.Status, *p1.MarginMin)
	fmt.Println(p1.Violations[0].Detail)
	p2 := checker.Fencing(h)
	fmt.Println(p2.Property, p2.Status)
	m := checker.Measure(h)
	fmt.Println("acquisitions:", m.Acquisitions, "fenced:", m.Fenced)
	// Output:
	// P1 violated -4s
	// h1 token 1 and h2 token 2 both believed they held "lock" at 6s (overlap 4s)
	// P2 ok
	// acquisitions: 2 fenced: 1
}

// Sweeps merge the metrics of many seeds; percentiles are exact over the
// pooled samples.
func ExampleAggregate() {
	seed1 := checker.Metrics{Runs: 1, SimTime: time.Minute, StoreWrites: 30,
		FailoverSamples: []time.Duration{2 * time.Second, 9 * time.Second}}
	seed2 := checker.Metrics{Runs: 1, SimTime: time.Minute, StoreWrites: 90,
		FailoverSamples: []time.Duration{3 * time.Second}}
	all := checker.Aggregate(seed1, seed2)
	fmt.Println(all.Runs, all.Failovers, all.FailoverP50, all.FailoverMax, all.StoreWritesPerSecond)
	// Output:
	// 2 3 3s 9s 1
}
