package mutants

import (
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// Scenarios the built-in catalogue lacks, proposed to its owner: each tells
// a story that some mutant needs in order to be caught. The catch test uses
// them only after the built-in scenarios failed to catch that mutant, and
// says so.

// slowReplies is the story of a grant that arrives late. The grantor's
// replies to h1 take 200 to 700 ms, still under the request timeout, so
// h1 takes them. At 10 s h1 is cut off for three TTLs; h2 and h3, which
// retry every 20 to 100 ms, take the lock the moment the grantor expires
// h1's lease. h1 must stop believing at send + TTL×(1−rho) − margin, so its
// belief ends before the grantor's expiry however late the grant arrived;
// a holder that counts from receipt believes up to 700 ms longer, into the
// next holder's lease (mutant/expiry-from-receipt). The nemesis isolates
// and pauses holders so that the lease moves more often.
func slowReplies() scenarios.Scenario {
	cfg := lease.Config{TTL: 5 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond,
		BackoffMin: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond}
	slow := sim.LinkConfig{Latency: sim.UniformDist(200*time.Millisecond, 700*time.Millisecond)}
	holders := []string{"h1", "h2", "h3"}
	return scenarios.Scenario{
		Name:       "slow-replies",
		Doc:        "the grantor's replies to the holder arrive late, then the holder is cut off",
		Story:      "see slowReplies in mutants/proposed_test.go",
		Config:     cfg,
		Contenders: 3,
		Lock:       scenarios.LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 250 * time.Millisecond},
		Faults: faults.Schedule{Events: []faults.Event{
			{At: 0, Kind: faults.KindLink, From: scenarios.GrantorNode, To: "h1", Link: &slow},
			{At: 10 * time.Second, Kind: faults.KindIsolate, Node: "h1"},
			{At: 10*time.Second + 3*cfg.TTL, Kind: faults.KindHeal},
		}},
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindIsolate, faults.KindPause},
			Targets:         holders,
			Partitionable:   holders,
			FaultsPerMinute: 6,
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}
