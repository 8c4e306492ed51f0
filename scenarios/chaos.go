package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// chaoticLink delays with a heavy tail, loses, duplicates and reorders.
var chaoticLink = sim.LinkConfig{
	Latency:      sim.ParetoDist(time.Millisecond, 3*time.Second, 1.2),
	Loss:         0.05,
	Duplicate:    0.05,
	Reorder:      0.1,
	ReorderDelay: sim.Duration(500 * time.Millisecond),
}

// MessageChaos runs everything over a network that delays, loses,
// duplicates and reorders.
func MessageChaos() Scenario {
	cfg := baseConfig()
	cfg.CheckpointEveryUnits = 3
	return Scenario{
		Name: "message-chaos",
		Doc:  "heavy-tailed delay, loss, duplication and reordering on every link",
		Story: "Every link delays messages with a heavy tail (up to 3 s, longer than a renewal interval), " +
			"loses 5%, duplicates 5% and reorders 10%. Late grants, late renewals, duplicated releases and " +
			"reordered checkpoints must not break any property; the nemesis changes links and partitions " +
			"further until the heal phase.",
		Config:          cfg,
		Contenders:      3,
		Lock:            LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 300 * time.Millisecond, Hold: 4 * time.Second, Idle: time.Second},
		Workers:         2,
		WorkersOptional: true,
		Tasks:           EvenTasks(6, 10, 500*time.Millisecond, 6*time.Second),
		Faults: faults.Schedule{Events: []faults.Event{
			{At: time.Second, Kind: faults.KindLink, From: faults.AnyNode, To: faults.AnyNode, Link: &chaoticLink},
		}},
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindLink, faults.KindPartition, faults.KindIsolate},
			FaultsPerMinute: 4,
		},
		Premises: []Premise{
			FaultWhileHolding("a network fault hit a holder while it held the lease", 0, nil, history.FaultLink, history.FaultIsolate, history.FaultPartitionOneWay),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}

// Swarm is the default scenario: one grantor, five holders and workers,
// ten simulated minutes, and the nemesis's full random mix. Each seed also
// draws the holders' paths at the fenced store (LockLoad.Drawn): one to
// four keys under the lease, read back or written blind. It is random, not
// a story, so it states no premise.
func Swarm() Scenario {
	cfg := baseConfig()
	cfg.CheckpointEveryUnits = 5
	return Scenario{
		Name: "swarm",
		Doc:  "the nemesis's random mix of every fault kind, keys and reads drawn per seed, ten simulated minutes",
		Story: "One grantor, three contending holders and two checkpointing workers run for ten simulated " +
			"minutes while the nemesis draws a random subset of every fault kind for each seed (swarm " +
			"testing), with durations biased towards the TTL and renewal boundaries. Each seed also draws " +
			"how many of four keys of the fenced store the lease covers and whether holders read each key " +
			"back before writing it (one key written blind where the implementation cannot read). Every " +
			"property must hold.",
		Config:     cfg,
		Contenders: 3,
		Lock: LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 500 * time.Millisecond, Hold: 20 * time.Second, Idle: 2 * time.Second,
			Keys: 4, ReadBack: true, Drawn: true},
		Workers:         2,
		WorkersOptional: true,
		Tasks:           EvenTasks(20, 20, 500*time.Millisecond, 25*time.Second),
		Nemesis:         &faults.Nemesis{FaultsPerMinute: swarmFaultsPerMinute},
		// No premise: a random run tells no story whose premise could
		// fail to happen (a seed whose nemesis acted only while no lease
		// was live is no less a run); what it exercised is reported as
		// behaviour coverage.
		Duration: 10 * time.Minute,
		HealAt:   9 * time.Minute,
	}
}
