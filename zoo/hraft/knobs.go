package hraft

import (
	"fmt"
	"time"

	"github.com/hashicorp/raft"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/scenarios"
)

// The knobs of hraft: raft.Config's timeouts, as an operator sets them
// (simrun tune --knob, and --knob on run, sweep, replay and shrink).
const (
	// KnobLeaderLeaseTimeout is raft.Config.LeaderLeaseTimeout: how long a
	// leader goes without hearing from a quorum before it steps down.
	KnobLeaderLeaseTimeout = "leader-lease-timeout"
	// KnobHeartbeatTimeout is raft.Config.HeartbeatTimeout: how long a
	// follower goes without a leader before it campaigns.
	KnobHeartbeatTimeout = "heartbeat-timeout"
	// KnobElectionTimeout is raft.Config.ElectionTimeout: how long a
	// candidate waits for an election to end.
	KnobElectionTimeout = "election-timeout"
)

// Knobs are the knobs hraft declares, with raft.DefaultConfig's values
// (DefaultTiming). Every combination must pass raft.ValidateConfig
// (TunedScenarios): LeaderLeaseTimeout <= HeartbeatTimeout <=
// ElectionTimeout.
var Knobs = []gohost.Knob{
	{Name: KnobLeaderLeaseTimeout, Doc: "raft.Config.LeaderLeaseTimeout: a leader steps down after this long without a quorum",
		Default: DefaultTiming.LeaderLease, Min: 5 * time.Millisecond, Max: time.Minute},
	{Name: KnobHeartbeatTimeout, Doc: "raft.Config.HeartbeatTimeout: a follower campaigns after this long without a leader",
		Default: DefaultTiming.Heartbeat, Min: 5 * time.Millisecond, Max: time.Minute},
	{Name: KnobElectionTimeout, Doc: "raft.Config.ElectionTimeout: a candidate's wait for an election to end",
		Default: DefaultTiming.Election, Min: 5 * time.Millisecond, Max: time.Minute},
}

// TunedScenarios returns Scenarios on the timing the knobs of k set (the
// others at DefaultTiming): what simrun's worker for hraft runs. A timing
// raft itself refuses (raft.ValidateConfig, as raft.NewRaft would) is an
// error that says why.
func TunedScenarios(k gohost.KnobValues) ([]scenarios.Scenario, error) {
	t := DefaultTiming
	t.LeaderLease = k.Get(KnobLeaderLeaseTimeout, t.LeaderLease)
	t.Heartbeat = k.Get(KnobHeartbeatTimeout, t.Heartbeat)
	t.Election = k.Get(KnobElectionTimeout, t.Election)
	conf := DefaultCluster
	conf.Timing = t
	if err := raft.ValidateConfig(conf.raftConfig(MemberName(0), nil)); err != nil {
		return nil, fmt.Errorf("hashicorp/raft refuses the timing: %w", err)
	}
	return stories(t), nil
}
