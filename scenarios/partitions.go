package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// PartitionHeal cuts holders off from the grantor and the store, then heals.
func PartitionHeal() Scenario {
	return Scenario{
		Name: "partition-heal",
		Doc:  "the holder is partitioned away, the lease moves, the partition heals",
		Story: "Three holders contend for the lock. From 2 s the grantor's replies to the holder (h1) take " +
			"700 ms, and at 4.5 s h1 is cut off from everyone for three TTLs: it must stop believing at its own " +
			"deadline, counted from when it sent its last successful renewal (not from when the slow reply " +
			"arrived), and another holder takes over only after the grantor has expired h1's lease. A nemesis " +
			"adds more partitions (symmetric, one-way, isolation, bridges) until the heal phase, after which " +
			"the lock must be held again within the liveness bound.",
		Config:     baseConfig(),
		Contenders: 3,
		Lock:       LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 500 * time.Millisecond},
		Faults: faults.Schedule{Events: []faults.Event{
			{At: 2 * time.Second, Kind: faults.KindLink, From: GrantorNode, To: "h1", Link: &slowLink},
			{At: 4500 * time.Millisecond, Kind: faults.KindIsolate, Node: "h1"},
			{At: 4500*time.Millisecond + 3*ttl, Kind: faults.KindHeal},
			{At: 4500*time.Millisecond + 3*ttl, Kind: faults.KindLinkReset},
		}},
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindPartition, faults.KindPartitionOneWay, faults.KindIsolate, faults.KindBridge},
			FaultsPerMinute: 4,
		},
		Premises: []Premise{
			FaultWhileHolding("the isolation cut h1 off while it held the lock", 0, []string{"h1"}, history.FaultIsolate),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}

// slowLink delivers every message 700 ms late (under the request timeout): more than the slack
// (2×rho×TTL + margin = 150 ms) between a holder's deadline and the grantor's
// expiry, so a holder that counts its lease from a reply's arrival
// believes too long.
var slowLink = sim.LinkConfig{Latency: sim.FixedDist(700 * time.Millisecond)}

// AsymmetricPartition lets renewals reach the grantor while its replies are
// lost.
func AsymmetricPartition() Scenario {
	return Scenario{
		Name: "asymmetric-partition",
		Doc:  "renewals arrive, replies don't: the holder must stop believing anyway",
		Story: "h1 holds the lock when the link from the grantor to h1 goes down in one direction only. " +
			"h1's renewals still arrive and the grantor keeps extending the lease, but no reply comes back, so " +
			"h1 must stop believing at its deadline even though the grantor thinks it holds the lease. Nobody " +
			"else may hold it meanwhile. After the heal, the lock must be held again in time.",
		Config:     baseConfig(),
		Contenders: 2,
		Lock:       LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 500 * time.Millisecond},
		Faults: faults.Schedule{Events: []faults.Event{
			{At: 5 * time.Second, Kind: faults.KindPartitionOneWay, From: GrantorNode, To: "h1"},
			{At: 5*time.Second + 4*ttl, Kind: faults.KindHeal},
		}},
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindPartitionOneWay},
			FaultsPerMinute: 4,
		},
		Premises: []Premise{
			FaultWhileHolding("the one-way partition cut h1 off from the grantor while it held the lock", 0, []string{"h1"}, history.FaultPartitionOneWay),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}
