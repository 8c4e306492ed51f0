package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// KleppmannGCPause is the story from Martin Kleppmann's "How to do
// distributed locking" (2016), step by step:
//
//  1. h1 acquires the lock and writes to the store under token 1;
//     h2 starts a second later and waits, because h1 holds the lock.
//  2. At 3 s, h1 decides to write, checks its lease (valid), and a
//     stop-the-world GC pause freezes it right there, for twice the TTL.
//  3. h1 cannot renew. Its lease expires at the grantor; h2 acquires it
//     under token 2 and writes.
//  4. h1 wakes up and, believing nothing has happened, sends the write it
//     had decided on, under token 1.
//  5. The store has accepted token 2 and rejects token 1: the stale write is
//     fenced. Exclusivity (P1) holds because h1 stopped believing at its own
//     deadline; fencing (P2) is what keeps the store safe.
func KleppmannGCPause() Scenario {
	return Scenario{
		Name: "kleppmann-gc-pause",
		Doc:  "a GC pause between checking the lease and writing; the stale write is fenced",
		Story: "h1 holds the lock and, between checking its lease and writing, freezes in a stop-the-world " +
			"pause longer than the TTL. The lease expires, h2 acquires it and writes under a higher token. " +
			"When h1 wakes up it sends its write under the old token, and the store rejects it (ErrFenced).",
		Config:     baseConfig(),
		Contenders: 2,
		Lock:       LockLoad{Stagger: time.Second, WriteEvery: 500 * time.Millisecond},
		Faults: faults.Schedule{Events: []faults.Event{{
			At: 3 * time.Second, Kind: faults.KindFailpoint, Node: "h1",
			Failpoint: lease.FailpointBeforeWrite, Action: faults.ActionPause, Duration: 2 * ttl,
		}}},
		Premises: []Premise{
			FailpointHit("h1", lease.FailpointBeforeWrite),
			FaultWhileHolding("h1 was paused longer than the TTL while it held the lock", ttl, []string{"h1"}, history.FaultPause),
		},
		Duration: time.Minute,
		HealAt:   30 * time.Second,
	}
}
