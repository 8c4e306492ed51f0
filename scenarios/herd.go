package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
)

// ThunderingHerd has many holders contend for one lock.
func ThunderingHerd() Scenario {
	return Scenario{
		Name: "thundering-herd",
		Doc:  "twenty holders contend for one lock, holding it briefly in turn",
		Story: "Twenty holders contend for one lock; each holds it for two seconds, writes, releases, and " +
			"contends again. Releases, expiries and pauses hand the lock around under heavy contention: " +
			"no two may believe at once, and the store must see tokens in order.",
		Config:     baseConfig(),
		Contenders: 20,
		Lock:       LockLoad{Stagger: 50 * time.Millisecond, WriteEvery: 250 * time.Millisecond, Hold: 2 * time.Second, Idle: 500 * time.Millisecond},
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindPause, faults.KindIsolate, faults.KindFailpoint},
			FaultsPerMinute: 6,
		},
		Premises: []Premise{
			ChangedHands(),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}
