package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// GrantorRestart crashes and restarts the lease store while leases and
// checkpoints are live.
func GrantorRestart() Scenario {
	cfg := baseConfig()
	cfg.CheckpointEveryUnits = 3
	return Scenario{
		Name: "grantor-restart",
		Doc:  "the grantor crashes and restarts: grace period, tokens continue, checkpoints survive",
		Story: "Holders contend for the lock and workers checkpoint tasks while the grantor crashes and " +
			"restarts. Leases live only in the grantor's memory, so after a restart it must grant nothing " +
			"until every lease it may have granted has expired (the grace period), fencing tokens must " +
			"continue from where they were, and every accepted checkpoint must survive.",
		Config:          cfg,
		Contenders:      3,
		Lock:            LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 500 * time.Millisecond},
		Workers:         2,
		WorkersOptional: true,
		Tasks:           EvenTasks(6, 12, 500*time.Millisecond, 5*time.Second),
		Faults:          grantorCrashes(2 * time.Second),
		Nemesis:         grantorCrashNemesis(),
		Premises: []Premise{
			FaultWhileLeaseLive("the grantor crashed while a lease was live", []string{history.FaultCrash}, GrantorNode),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}

// LockServerRestart crashes and restarts the lease store while a lock is
// held, and nothing else: the crash story for every implementation, since
// it needs nothing beyond acquiring, holding and writing.
func LockServerRestart() Scenario {
	return Scenario{
		Name: "lock-server-restart",
		Doc:  "the lock's server crashes and restarts while the lock is held: tokens continue, never two holders",
		Story: "Three holders contend for one lock and write under their tokens while the lease store crashes " +
			"and restarts, twice on schedule and more at random. Whatever the store keeps in memory is gone " +
			"after a crash: a lock it forgets may be granted again while its holder still believes (P1), and a " +
			"fencing counter it forgets hands out a token again (P2). A store that keeps what it acknowledged " +
			"durable, or waits out every lease it may have granted, keeps both.",
		Config:     baseConfig(),
		Contenders: 3,
		Lock:       LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 500 * time.Millisecond},
		Faults:     grantorCrashes(time.Second),
		Nemesis:    grantorCrashNemesis(),
		Premises: []Premise{
			FaultWhileLeaseLive("the lock's server crashed while the lock was held", []string{history.FaultCrash}, GrantorNode),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}

// WorkerCrashHandoff crashes and pauses workers in the middle of
// checkpointed tasks.
func WorkerCrashHandoff() Scenario {
	cfg := baseConfig()
	cfg.CheckpointEveryUnits = 4
	return Scenario{
		Name: "worker-crash-handoff",
		Doc:  "workers crash mid-task; tasks move with their checkpoints",
		Story: "Three workers run twelve tasks of twenty units each, checkpointing every four units under " +
			"their lease's token. The nemesis crashes and pauses workers, also exactly before a checkpoint " +
			"leaves. Each task must move to another worker with its latest accepted checkpoint (P5), no unit " +
			"may be skipped, completion must be recorded once, and re-executed work must stay within the work " +
			"done since the last accepted checkpoint (P6).",
		Config:  cfg,
		Workers: 3,
		Tasks:   EvenTasks(12, 20, 250*time.Millisecond, 3*time.Second),
		// The story's core on purpose: each worker freezes exactly before its
		// first checkpoint leaves, for twice the TTL, while it holds a task.
		Faults: faults.Schedule{Events: pauseBeforeCheckpoint(500*time.Millisecond, 2*ttl, "w1", "w2", "w3")},
		Nemesis: &faults.Nemesis{
			Targets:         []string{"w1", "w2", "w3"},
			Kinds:           []faults.Kind{faults.KindCrash, faults.KindPause, faults.KindFailpoint},
			FaultsPerMinute: 6,
			Failpoints:      []string{lease.FailpointBeforeCheckpoint, lease.FailpointBeforeWrite},
		},
		Premises: []Premise{
			FailpointHit("", lease.FailpointBeforeCheckpoint),
			AnyOf("a worker froze past the TTL or crashed while it held a task",
				FaultWhileHolding("a worker froze past the TTL", ttl, []string{"w1", "w2", "w3"}, history.FaultPause),
				FaultWhileHolding("a worker crashed", 0, []string{"w1", "w2", "w3"}, history.FaultCrash)),
			ChangedHands(),
		},
		Duration: 2 * time.Minute,
		HealAt:   80 * time.Second,
	}
}

// pauseBeforeCheckpoint arms, at at, a failpoint on each worker that pauses
// it for d exactly before its next checkpoint leaves.
func pauseBeforeCheckpoint(at, d time.Duration, workers ...string) []faults.Event {
	events := make([]faults.Event, 0, len(workers))
	for _, w := range workers {
		events = append(events, faults.Event{At: at, Kind: faults.KindFailpoint, Node: w,
			Failpoint: lease.FailpointBeforeCheckpoint, Action: faults.ActionPause, Duration: d})
	}
	return events
}

// grantorCrashes crashes the lease store at 10 s, for down, and again at
// 40 s for 300 ms.
func grantorCrashes(down time.Duration) faults.Schedule {
	return faults.Schedule{Events: []faults.Event{
		{At: 10 * time.Second, Kind: faults.KindCrash, Node: GrantorNode},
		{At: 10*time.Second + down, Kind: faults.KindRestart, Node: GrantorNode},
		{At: 40 * time.Second, Kind: faults.KindCrash, Node: GrantorNode},
		{At: 40*time.Second + 300*time.Millisecond, Kind: faults.KindRestart, Node: GrantorNode},
	}}
}

// grantorCrashNemesis crashes the lease store at random, and does nothing
// else: a random pause before an explicit crash lets every lease lapse, and
// the crash then tests nothing.
func grantorCrashNemesis() *faults.Nemesis {
	return &faults.Nemesis{Targets: []string{GrantorNode}, Kinds: []faults.Kind{faults.KindCrash}, FaultsPerMinute: 3}
}
