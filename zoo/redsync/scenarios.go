package redsync

import (
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/scenarios"
)

// Fencing is how the holders' writes are fenced.
type Fencing uint8

const (
	// NoToken: redsync as it is. The writes carry token 0 (redsync has no
	// token) to a store that accepts every write.
	NoToken Fencing = iota
	// TokenUnenforced: the holders INCR a token after each Lock and write
	// under it, but the store accepts every write: P2 shows what fencing
	// would have refused.
	TokenUnenforced
	// Fenced: the INCR token, and a store that refuses a write whose token
	// is below the highest it accepted (the standard fix).
	Fenced
)

// String names the configuration as scenario names use it.
func (f Fencing) String() string {
	return [...]string{"no-token", "token-unenforced", "fenced"}[f]
}

// Setup is one run's cast: a simulated Redis, the shared fenced store and
// the holders h1, h2, … in order.
type Setup struct {
	Holders  []HolderConfig
	Fencing  Fencing
	Server   ServerOptions
	Duration time.Duration
	Schedule faults.Schedule
}

// HolderName is the i-th holder's node name (from 0: "h1").
func HolderName(i int) string { return fmt.Sprintf("h%d", i+1) }

// Config is the gohost run of the setup.
func (s Setup) Config() gohost.Config {
	cfg := gohost.Config{Duration: s.Duration, Schedule: s.Schedule, SeedCryptoRand: true,
		Nodes: []gohost.NodeSpec{{Name: RedisNode, Run: Server(s.Server)},
			{Name: StoreNode, Run: gohost.FencedStore(gohost.StoreOptions{Unfenced: s.Fencing != Fenced})}},
		History: gohost.HistoryConfig{Spec: model.ExpiringKeySpec().Name, Grantor: RedisNode, FencedStore: StoreNode}}
	for i, h := range s.Holders {
		h.Token = s.Fencing != NoToken
		cfg.Nodes = append(cfg.Nodes, gohost.NodeSpec{Name: HolderName(i), Run: Holder(h)})
	}
	if len(s.Holders) > 0 {
		h := s.Holders[0]
		// BackoffMax is the longest a contender waits between attempts:
		// redsync retries SET NX every 50–250 ms, and a holder whose Lock
		// failed (or who unlocked) idles for Idle before the next.
		cfg.History.Lease = history.Lease{TTL: h.Expiry, RhoPPB: 10_000_000, // redsync's drift factor, 0.01
			RenewInterval: h.ExtendEvery, RequestTimeout: h.Client.ReadTimeout, BackoffMax: max(h.Idle, 250*time.Millisecond)}
	}
	if len(s.Holders) > 1 {
		// The holders lock again after every unlock, lost lock or failed
		// Lock, for the whole run: P4 requires the lock held again after
		// the heal.
		cfg.History.Contended = []string{Resource}
	}
	return cfg
}

// holders returns n default holders starting stagger apart.
func holders(n int, stagger time.Duration) []HolderConfig {
	out := make([]HolderConfig, n)
	for i := range out {
		out[i] = DefaultHolder
		out[i].Start = time.Duration(i) * stagger
	}
	return out
}

// Scenarios returns every story of the module, each in the
// configurations it is told in.
func Scenarios() []scenarios.Scenario {
	var out []scenarios.Scenario
	for _, f := range []Fencing{NoToken, TokenUnenforced, Fenced} {
		out = append(out, GCPause(f))
	}
	for _, f := range []Fencing{NoToken, Fenced} {
		out = append(out, Contention(f))
	}
	for _, aof := range []bool{false, true} {
		out = append(out, ServerRestart(aof))
	}
	for _, d := range []float64{0.01, 0.03} {
		out = append(out, ClockDrift(d))
	}
	for _, aof := range []bool{true, false} {
		out = append(out, Swarm(aof))
	}
	return out
}

// ClockDrift is redsync's drift factor at work: Redis's clock runs fast
// by drift from the start, and holders that never extend (Extend every
// hour) keep the lock until Until() and stop. Redis expires the key after
// expiry/(1+drift) of true time; redsync's validity is expiry minus the
// Lock's round trip minus 1 % of expiry. Within the factor (1 %) the key
// outlives every belief and P1 holds; beyond it (3 %) h2 locks while h1
// still believes: an overlap outside redsync's assumption (rho 1 %), which
// P1 reports as unknown, assumption exceeded (the history's MaxDriftPPB
// is the drift of Redis's clock, which its expiry reads). Drift applies
// to Redis only: redsync reads time.Now, the bubble's clock, which no
// fault moves (Result.NotApplied says so).
func ClockDrift(drift float64) scenarios.Scenario {
	name := fmt.Sprintf("fast-%g%%", drift*100)
	return scenarios.Scenario{
		Name:  "redsync-clock-drift/" + name,
		Doc:   fmt.Sprintf("Redis's clock runs %g%% fast; holders do not extend", drift*100),
		Story: "h1 locks and holds until Until() without extending; h2 waits; Redis's clock runs fast.",
		Goroutines: func(uint64) gohost.Config {
			hs := holders(2, time.Second)
			for i := range hs {
				hs[i].ExtendEvery = time.Hour
			}
			return Setup{Holders: hs, Fencing: Fenced, Duration: 30 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 25 * time.Second, Events: []faults.Event{
					{At: time.Millisecond, Kind: faults.KindDrift, Node: RedisNode, Drift: drift}}}}.Config()
		},
		Premises: []scenarios.Premise{scenarios.ChangedHands()},
	}
}

// GCPause is Kleppmann's story ("How to do distributed locking", 2016)
// with redsync: h1 holds the lock and, between checking that it is still
// valid and writing, stops in a pause twice the expiry (its I/O frozen, as
// by a stop-the-world GC). The key expires on Redis, h2 locks and writes.
// h1 wakes and sends the write it had decided on. Both believed at once
// (P1 is violated whatever the fencing); without a token the store takes
// h1's stale write (P2 is violated), with the INCR token it refuses it.
func GCPause(f Fencing) scenarios.Scenario {
	pause := 2 * DefaultHolder.Expiry
	return scenarios.Scenario{
		Name:  "redsync-gc-pause/" + f.String(),
		Doc:   "a pause longer than the expiry between checking the lock and writing (" + f.String() + ")",
		Story: "h1 holds the lock and pauses at its write for twice the expiry; the key expires, h2 locks; h1 wakes and writes.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: holders(2, time.Second), Fencing: f, Duration: 40 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 30 * time.Second, Events: []faults.Event{{
					At: 3 * time.Second, Kind: faults.KindFailpoint, Node: "h1", Failpoint: FailpointBeforeWrite,
					Action: faults.ActionPause, Duration: pause}}}}.Config()
		},
		Premises: []scenarios.Premise{
			scenarios.FailpointHit("h1", FailpointBeforeWrite),
			scenarios.FaultWhileHolding("h1 paused at its write while it held the lock", 0, []string{"h1"}, history.FaultFailpointHit),
			scenarios.ChangedHands(),
		},
	}
}

// Contention is three holders contending for the lock for a minute while
// a nemesis partitions, isolates and pauses holders and Redis and arms
// the before-write failpoint with a pause (pauses up to twice the
// expiry). Without a token P2 fails as soon as the lock changes hands
// (every holder writes under token 0); with the INCR token and the fenced
// store it must hold. P1 fails when a pause at the failpoint outlasts the
// lock: an I/O pause alone does not stop the holder's code, which checks
// Until() before each write and stops believing in time.
func Contention(f Fencing) scenarios.Scenario {
	nodes := []string{RedisNode, "h1", "h2", "h3"}
	return scenarios.Scenario{
		Name:  "redsync-contention/" + f.String(),
		Doc:   "three holders contend under partitions and pauses (" + f.String() + ")",
		Story: "h1, h2 and h3 lock, extend, write and unlock in turn while a nemesis cuts and freezes them and Redis.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: holders(3, 700*time.Millisecond), Fencing: f, Duration: time.Minute}.Config()
		},
		Nemesis: &faults.Nemesis{Targets: nodes, Partitionable: nodes,
			Kinds:      []faults.Kind{faults.KindPartition, faults.KindIsolate, faults.KindPause, faults.KindFailpoint},
			Failpoints: []string{FailpointBeforeWrite}, FaultsPerMinute: 8, Phase: 45 * time.Second, PauseMax: 2 * DefaultHolder.Expiry,
			WindowMax:  15 * time.Second,
			Boundaries: []time.Duration{DefaultHolder.Expiry, DefaultHolder.ExtendEvery, DefaultClientOptions.ReadTimeout}},
		Premises: []scenarios.Premise{scenarios.ChangedHands()},
	}
}

// Swarm is Contention with every fault the goroutine host applies, drawn
// afresh for each seed: partitions, isolations, link latency, pauses, the
// before-write failpoint, crashes and restarts of the holders and of Redis
// (with appendonly a restart loses nothing; volatile, it loses the lock
// and the token counter, as in ServerRestart), and drift of Redis's clock
// within and beyond redsync's drift factor. It is the story a sweep runs
// to reach the rare paths (the behaviours a sweep counts): a holder that
// crashes while it believes, a request of an earlier incarnation
// processed after its successor's, a belief ended by a fenced write. The
// writes are fenced: P2 must hold; P1 fails where a pause outlasts the
// lock, as in Contention.
func Swarm(appendOnly bool) scenarios.Scenario {
	name := "volatile"
	if appendOnly {
		name = "appendonly"
	}
	nodes := []string{RedisNode, "h1", "h2", "h3"}
	// The fenced store is cut and slowed (a write in flight while the lock
	// changes hands) but never paused or crashed: it is the oracle.
	links := append(slices.Clone(nodes), StoreNode)
	return scenarios.Scenario{
		Name:  "redsync-swarm/" + name,
		Doc:   "three fenced holders contend under every fault the goroutine host applies (" + name + " Redis)",
		Story: "h1, h2 and h3 lock, extend, write and unlock in turn while a nemesis cuts, slows, freezes, crashes and restarts them and Redis, and drifts Redis's clock.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: holders(3, 700*time.Millisecond), Fencing: Fenced, Server: ServerOptions{AppendOnly: appendOnly},
				Duration: time.Minute}.Config()
		},
		Nemesis: &faults.Nemesis{Targets: nodes, Partitionable: links,
			Kinds: []faults.Kind{faults.KindPartition, faults.KindIsolate, faults.KindLink, faults.KindPause,
				faults.KindFailpoint, faults.KindCrash, faults.KindDrift},
			Failpoints: []string{FailpointBeforeWrite}, FaultsPerMinute: 16, Phase: 45 * time.Second,
			PauseMax: 2 * DefaultHolder.Expiry, DelayMax: DefaultClientOptions.ReadTimeout, WindowMax: 15 * time.Second,
			Rho: 0.01, DriftBeyondRho: true,
			Boundaries: []time.Duration{DefaultHolder.Expiry, DefaultHolder.ExtendEvery, DefaultClientOptions.ReadTimeout}},
		Premises: []scenarios.Premise{scenarios.ChangedHands()},
	}
}

// ServerRestart crashes Redis while h1 holds the lock and restarts it a
// second later; h2 is waiting. Without persistence the restarted Redis
// has lost the key (and the token counter): h2 locks at once while h1
// still believes, so P1 fails, P3 fails (the store broke its own
// specification: a key set for 8 s was gone after 2), and the INCR token
// starts again at 1, a token h1 already held, so P2 fails even with the
// fenced store. With appendonly (fsync always) nothing is lost.
func ServerRestart(appendOnly bool) scenarios.Scenario {
	name := "volatile"
	if appendOnly {
		name = "appendonly"
	}
	return scenarios.Scenario{
		Name:  "redsync-server-restart/" + name,
		Doc:   "Redis crashes and restarts while h1 holds the lock (" + name + ")",
		Story: "h1 holds the lock, h2 waits; Redis crashes at 5 s and restarts at 6 s.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: holders(2, time.Second), Fencing: Fenced, Server: ServerOptions{AppendOnly: appendOnly},
				Duration: 30 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 10 * time.Second, Events: []faults.Event{
					{At: 5 * time.Second, Kind: faults.KindCrash, Node: RedisNode},
					{At: 6 * time.Second, Kind: faults.KindRestart, Node: RedisNode}}}}.Config()
		},
		Premises: []scenarios.Premise{ServerCrashedWhileHeld()},
	}
}

// ServerCrashedWhileHeld holds when the Redis node crashed while some
// holder believed it held the lock.
func ServerCrashedWhileHeld() scenarios.Premise {
	return scenarios.FaultWhileLeaseLive("redis crashed while a holder held the lock", []string{history.FaultCrash}, RedisNode)
}
