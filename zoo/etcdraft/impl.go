package etcdraft

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// Spec is the specification the store follows: an etcd-style lessor
// (model.Lessor).
const Spec = "lessor"

// Name is the correct configuration's implementation name.
const Name = "zoo/etcdraft"

// Options are the choices a deployment of the store makes. Zero fields
// take the defaults noted.
type Options struct {
	// Members is the number of members, 3 (default) or 5.
	Members int
	// Tick is a raft tick on each member's clock (default 100ms, etcd's
	// heartbeat interval); ElectionTicks (default 10) and HeartbeatTicks
	// (default 1) are raft's, so the election timeout is 1s. A run's
	// lease.Config.ElectionTimeout, when set, gives ElectionTicks instead
	// (a whole number of ticks: `simrun tune --election-timeout`).
	Tick                          time.Duration
	ElectionTicks, HeartbeatTicks int
	// LeaseBasedReads answers keepalives and reads after raft's
	// ReadOnlyLeaseBased check (the leader's own belief that it leads)
	// instead of a ReadIndex heartbeat round.
	LeaseBasedReads bool
	// NoCheckpoints turns off the checkpointing of remaining TTLs through
	// the log (etcd's LeaseCheckpoint, on by default here).
	NoCheckpoints bool
	// CheckpointInterval is how often the primary checkpoints (default
	// TTL/2; etcd's is 5 minutes for TTLs of minutes).
	CheckpointInterval time.Duration
	// SnapshotEvery is how many applied entries trigger a snapshot and a
	// log compaction (default 200).
	SnapshotEvery uint64
}

// bugs are deliberate defects, for mutants only.
type bugs struct {
	noPromoteExtension        bool // Promote does not add the election timeout
	checkpointFirstLeaderOnly bool // checkpoints only in the first leader's term
	lazyDemote                bool // the lessor stays primary after raft steps down, until it applies a newer term
	followerKeepalive         bool // a follower answers keepalives from its applied state
}

// settings are Options with defaults, and the bugs.
type settings struct {
	members                       int
	tick                          time.Duration
	electionTicks, heartbeatTicks int
	leaseBasedReads, checkpoints  bool
	checkpointInterval            time.Duration
	snapshotEvery, keepEntries    uint64
	bugs                          bugs
}

func (o Options) settings(cfg lease.Config, b bugs) (settings, error) {
	cfg = cfg.WithDefaults()
	s := settings{members: o.Members, tick: o.Tick, electionTicks: o.ElectionTicks, heartbeatTicks: o.HeartbeatTicks,
		leaseBasedReads: o.LeaseBasedReads, checkpoints: !o.NoCheckpoints, checkpointInterval: o.CheckpointInterval,
		snapshotEvery: o.SnapshotEvery, bugs: b}
	if s.members == 0 {
		s.members = 3
	}
	s.tick = o.tick()
	if cfg.ElectionTimeout > 0 { // the run's knob (Capabilities.ElectionTick) overrides the option
		if cfg.ElectionTimeout%s.tick != 0 {
			return s, fmt.Errorf("etcdraft: election timeout %v is not a whole number of %v ticks: %w",
				cfg.ElectionTimeout, s.tick, lease.ErrInvalidConfig)
		}
		s.electionTicks = int(cfg.ElectionTimeout / s.tick)
	}
	if s.electionTicks == 0 {
		s.electionTicks = 10
	}
	if s.heartbeatTicks == 0 {
		s.heartbeatTicks = 1
	}
	if s.checkpointInterval == 0 {
		s.checkpointInterval = cfg.TTL / 2
	}
	if s.snapshotEvery == 0 {
		s.snapshotEvery = 200
	}
	s.keepEntries = s.snapshotEvery / 2
	switch {
	case s.members < 1 || s.members > 7:
		return s, fmt.Errorf("etcdraft: %d members, want 1 to 7: %w", s.members, lease.ErrInvalidConfig)
	case s.tick <= 0 || s.heartbeatTicks <= 0 || s.electionTicks <= s.heartbeatTicks:
		return s, fmt.Errorf("etcdraft: tick %v, heartbeat %d and election %d ticks: want positive, election above heartbeat: %w",
			s.tick, s.heartbeatTicks, s.electionTicks, lease.ErrInvalidConfig)
	case s.checkpointInterval <= 0:
		return s, fmt.Errorf("etcdraft: checkpoint interval %v: %w", s.checkpointInterval, lease.ErrInvalidConfig)
	}
	return s, nil
}

// tick is Options.Tick, or its default of 100ms.
func (o Options) tick() time.Duration {
	if o.Tick == 0 {
		return 100 * time.Millisecond
	}
	return o.Tick
}

// electionTimeout is the election timeout on a member's clock: what a new
// leader extends every lease by.
func (s settings) electionTimeout() time.Duration { return time.Duration(s.electionTicks) * s.tick }

// Impl returns the store with 3 members and the defaults.
func Impl() lease.Impl { return ImplWith(Options{}) }

// ImplWith returns the store deployed with opts. A configuration other
// than the default is named after what differs ("zoo/etcdraft/5-members").
func ImplWith(opts Options) lease.Impl {
	name, doc := Name, "a replicated lease store: go.etcd.io/raft members with etcd's lessor, keepalives after ReadIndex"
	switch {
	case opts.LeaseBasedReads:
		name, doc = Name+"/lease-based-reads", "zoo/etcdraft with raft's ReadOnlyLeaseBased reads"
	case opts.Members == 5:
		name, doc = Name+"/5-members", "zoo/etcdraft with 5 members"
	case opts.NoCheckpoints:
		name, doc = Name+"/no-checkpoints", "zoo/etcdraft without lease checkpoints"
	}
	return build(name, doc, opts, bugs{})
}

// build assembles an Impl.
func build(name, doc string, opts Options, b bugs) lease.Impl {
	members := opts.Members
	if members == 0 {
		members = 3
	}
	return lease.Impl{
		Name: name,
		Doc:  doc,
		NewGrantor: func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
			s, err := opts.settings(cfg, b)
			if err != nil {
				return nil, err
			}
			return newMember(env, cfg, s)
		},
		NewHolder: func(env lease.Env, cfg lease.Config, grantor, store lease.Addr) (lease.Holder, error) {
			return newHolder(env, cfg, lease.MemberAddrs(grantor, members), store)
		},
		NewResource: lease.NewResource,
		// Only the primary expires a lease, at its TTL on its clock (and
		// later after a leader change), so the holder budgets both clocks'
		// drift: it believes TTL×(1−2rho) − Margin from its request's send.
		DriftSplit: lease.SplitHolderBudgets,
		Spec:       Spec,
		Members:    members,
		Capabilities: lease.Capabilities{
			Checkpoints: true,
			SideEffects: true,
			Failpoints:  []string{lease.FailpointBeforeWrite, lease.FailpointBeforeCheckpoint},
			// Config.ElectionTimeout sets the election ticks (Options).
			ElectionTick: opts.tick(),
		},
	}
}

// Mutants returns the store with one of etcd's lease bugs each, named
// zoo/etcdraft/<bug>.
func Mutants() []lease.Impl {
	return []lease.Impl{
		build(Name+"/lease-reads-deposed-leader",
			"keepalives confirmed by raft's ReadOnlyLeaseBased check: a deposed leader that still believes it leads renews (raft#166)",
			Options{LeaseBasedReads: true}, bugs{}),
		build(Name+"/no-promote-extension",
			"a new leader restarts every lease at its remaining TTL without the election timeout, while leaders renew on their own word as etcd's do: it may expire a lease the old leader just renewed (etcd#9395)",
			Options{LeaseBasedReads: true}, bugs{noPromoteExtension: true}),
		build(Name+"/checkpoint-first-leader-only",
			"remaining TTLs are checkpointed only in the first leader's term; later leaders restore stale ones (etcd PR #13491, #17132)",
			Options{}, bugs{checkpointFirstLeaderOnly: true}),
		build(Name+"/revoke-after-stall",
			"the lessor stays primary after raft steps down, until the apply loop sees the new term: a stalled old leader revokes every lease (etcd#15247, #12528)",
			Options{}, bugs{lazyDemote: true}),
		build(Name+"/follower-keepalive",
			"a follower answers keepalives from its own applied state instead of forwarding them to the leader",
			Options{}, bugs{followerKeepalive: true}),
	}
}

// All returns the store's configurations and its mutants, as simrun's
// --impl lists them.
func All() []lease.Impl {
	return append([]lease.Impl{Impl(), ImplWith(Options{Members: 5}), ImplWith(Options{NoCheckpoints: true})},
		Mutants()...)
}
