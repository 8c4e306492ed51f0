package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
)

// MultiKeyReadBack is the story of a lease that covers several keys of the
// fenced store, read back as well as written: the paths a single key
// written blind never takes.
func MultiKeyReadBack() Scenario {
	return Scenario{
		Name: "multi-key-read-back",
		Doc:  "one lease covers four keys, each read back from the fenced store before it is written",
		Story: "Three holders take turns on a ledger whose lease covers four keys of the fenced store. " +
			"While holding, a holder visits the keys in turn, from the first after each grant: it reads " +
			"the key back under its token and, if it still holds the lease when the value arrives, writes " +
			"it. Pauses, partitions and a slow, duplicating network leave a holder's reads and writes in " +
			"flight while the lease changes hands. Every write under a token must be refused once the store " +
			"accepted a later token on any key of the ledger, and every read must return the key's latest " +
			"accepted write.",
		Config:     baseConfig(),
		Contenders: 3,
		Lock: LockLoad{Resource: "ledger", Stagger: 500 * time.Millisecond, WriteEvery: 250 * time.Millisecond,
			Hold: 3 * time.Second, Idle: 500 * time.Millisecond, Keys: 4, ReadBack: true},
		Faults: faults.Schedule{Events: []faults.Event{
			{At: time.Second, Kind: faults.KindLink, From: faults.AnyNode, To: faults.AnyNode, Link: &chaoticLink},
		}},
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindPause, faults.KindFailpoint, faults.KindLink, faults.KindPartition},
			FaultsPerMinute: 10,
		},
		Premises: []Premise{
			FaultWhileHolding("a pause or a network fault hit a holder while it held the ledger", 0, nil,
				history.FaultPause, history.FaultLink, history.FaultPartition, history.FaultPartitionOneWay),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}
