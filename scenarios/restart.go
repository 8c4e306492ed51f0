package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
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
		Config:     cfg,
		Contenders: 3,
		Lock:       LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 500 * time.Millisecond},
		Workers:    2,
		Tasks:      EvenTasks(6, 12, 500*time.Millisecond, 5*time.Second),
		Faults: faults.Schedule{Events: []faults.Event{
			{At: 10 * time.Second, Kind: faults.KindCrash, Node: GrantorNode},
			{At: 12 * time.Second, Kind: faults.KindRestart, Node: GrantorNode},
			{At: 40 * time.Second, Kind: faults.KindCrash, Node: GrantorNode},
			{At: 40*time.Second + 300*time.Millisecond, Kind: faults.KindRestart, Node: GrantorNode},
		}},
		Nemesis: &faults.Nemesis{
			Targets:         []string{GrantorNode},
			Kinds:           []faults.Kind{faults.KindCrash, faults.KindPause},
			FaultsPerMinute: 3,
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
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindCrash, faults.KindPause, faults.KindFailpoint},
			FaultsPerMinute: 6,
			Failpoints:      []string{lease.FailpointBeforeCheckpoint, lease.FailpointBeforeWrite},
		},
		Duration: 2 * time.Minute,
		HealAt:   80 * time.Second,
	}
}
