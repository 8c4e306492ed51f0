package consul

import (
	"fmt"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// Setup is one run's cast: the simulated Consul, the shared store and the
// holders h1, h2, … in order.
type Setup struct {
	Holders []HolderConfig
	// Token is every holder's fencing token; the store enforces it unless
	// it is NoToken.
	Token    Token
	Server   ServerOptions
	Duration time.Duration
	Schedule faults.Schedule
}

// HolderName is the i-th holder's node name (from 0: "h1").
func HolderName(i int) string { return fmt.Sprintf("h%d", i+1) }

// Config is the gohost run of the setup.
//
// The history declares the consul-session specification for the server's
// own operations (ops.go), and Lease the holds it and P4's bound read:
// the session TTL, held up to TTL×multiplier on the server's clock
// (HoldPPB: the invalidation bound; a multiplier below 1, a variant,
// declares none beyond the TTL, so that P3 catches it), the lock-delay
// the sessions ask for (LockDelay; declared even where the IgnoreLockDelay
// variant does not honour it, so that P3 catches that too), and
// BackoffMax, the longest a contender can wait once the lock is free and
// its lock-delay over: api.Lock's 5 s retry (DefaultLockRetryTime), then
// the holder's idle.
func (s Setup) Config() gohost.Config {
	cfg := gohost.Config{Duration: s.Duration, Schedule: s.Schedule,
		Nodes: []gohost.NodeSpec{{Name: ServerNode, Run: Server(s.Server)},
			{Name: StoreNode, Run: gohost.FencedStore(gohost.StoreOptions{Unfenced: s.Token == NoToken})}},
		History: gohost.HistoryConfig{Spec: Spec, Grantor: ServerNode, FencedStore: StoreNode}}
	for i, h := range s.Holders {
		h.Token = s.Token
		cfg.Nodes = append(cfg.Nodes, gohost.NodeSpec{Name: HolderName(i), Run: Holder(h)})
	}
	if len(s.Holders) > 0 {
		h := s.Holders[0]
		cfg.History.Lease = history.Lease{TTL: h.SessionTTL, HoldPPB: max(int64((s.Server.multiplier()-1)*1e9), 0),
			LockDelay: min(h.LockDelay, MaxLockDelay), BackoffMax: api.DefaultLockRetryTime + h.Idle}
	}
	if len(s.Holders) > 1 {
		// The holders lock again after every unlock, lost lock or failed
		// Lock, for the whole run: P4 requires the lock held again.
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
	for _, c := range []CutOffConfig{{Token: NoToken}, {Token: ModifyIndex}, {Token: LockIndex},
		{Token: ModifyIndex, TTL: 10 * time.Second}, {Token: ModifyIndex, TTL: 30 * time.Second},
		{Token: NoToken, Primitive: UseSemaphore}, {Token: ModifyIndex, Budget: true}} {
		out = append(out, CutOff(c))
	}
	for _, v := range []DelayVariant{DelayHonoured, DelayIgnored, DelayShort, EarlyInvalidation} {
		out = append(out, LockDelayStory(v))
	}
	for _, r := range []int{0, 3} {
		out = append(out, ServerRestart(r))
	}
	for _, t := range []Token{NoToken, ModifyIndex, LockIndex} {
		out = append(out, GCPause(t))
	}
	for _, p := range []Primitive{UseLock, UseSemaphore} {
		out = append(out, Herd(p))
	}
	for _, t := range []Token{NoToken, ModifyIndex} {
		out = append(out, Contention(t))
	}
	return out
}

// CutOffConfig is one configuration of the cut-off story.
type CutOffConfig struct {
	Token     Token
	TTL       time.Duration // 0: api.Lock's default, 15 s
	Primitive Primitive
	// Budget is the holder-side fix (HolderConfig.Budget).
	Budget bool
}

// name is the configuration's part of the scenario name.
func (c CutOffConfig) name() string {
	n := c.Token.String()
	if c.TTL != 0 {
		n += fmt.Sprintf("-ttl-%v", c.TTL)
	}
	if c.Primitive == UseSemaphore {
		n = "semaphore-" + n
	}
	if c.Budget {
		n += "-budget"
	}
	return n
}

// CutOff is hashicorp/consul#18271: h1 holds the lock and is isolated at
// 5 s until 100 s, far past its session's TTL. Its renewals stall (the
// client has no request timeout, and RenewPeriodic's error would be
// discarded anyway), the server invalidates the session at twice the TTL
// and, after the lock-delay, h2 locks. h1's monitor (a blocking query)
// hears nothing until the heal, so h1 believes throughout: P1 is violated
// in every configuration. Without a token P2 is violated too; with the
// key's ModifyIndex or LockIndex as token the store refuses h1's stale
// writes (queued during the cut, delivered at the heal). With the
// holder-side fix (Budget) h1 stops believing a TTL after its last
// successful renewal was sent, before the server can invalidate the
// session: P1 holds.
func CutOff(c CutOffConfig) scenarios.Scenario {
	hs := holders(2, time.Second)
	for i := range hs {
		if c.TTL != 0 {
			hs[i].SessionTTL = c.TTL
		}
		hs[i].Primitive, hs[i].Budget = c.Primitive, c.Budget
		hs[i].Hold = time.Hour // h1 keeps the lock it believes it holds
	}
	return scenarios.Scenario{
		Name:  "consul-cutoff/" + c.name(),
		Doc:   "the holder is cut off past its session TTL while another locks (hashicorp/consul#18271; " + c.name() + ")",
		Story: "h1 locks; h1 is isolated from 5 s to 100 s; its session expires at 2×TTL, h2 locks after the lock-delay; h1 hears of it only at the heal.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: hs, Token: c.Token, Server: DefaultServer, Duration: 170 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 100 * time.Second, Events: []faults.Event{
					{At: 5 * time.Second, Kind: faults.KindIsolate, Node: "h1"}}}}.Config()
		},
		Premises: []scenarios.Premise{
			scenarios.FaultWhileHolding("h1 was isolated while it held the lock", 0, []string{"h1"}, history.FaultIsolate),
			scenarios.ChangedHands(),
		},
	}
}

// DelayVariant is a lock-delay configuration or server variant.
type DelayVariant uint8

const (
	// DelayHonoured: Consul, lock-delay 15 s.
	DelayHonoured DelayVariant = iota
	// DelayIgnored: a server variant that never applies a lock-delay.
	DelayIgnored
	// DelayShort: Consul, with the holders' LockDelay set to 1 ms (a
	// user's configuration).
	DelayShort
	// EarlyInvalidation: a server variant that invalidates a session at
	// half its TTL, below Consul's documented lower bound.
	EarlyInvalidation
)

// String names the variant as scenario names use it.
func (v DelayVariant) String() string {
	return [...]string{"honoured", "ignored", "1ms", "early-invalidation"}[v]
}

// LockDelayStory is what lock-delay is for: h1 holds the lock and is
// isolated from 5 s to 40 s, past twice its 15 s TTL. The server
// invalidates its session at about 30 s and refuses the lock for the
// 15 s lock-delay; at the heal h1's monitor hears that its key was
// released and h1 stops believing, about 5 s before h2 can lock. Honoured,
// P1 holds. With the lock-delay ignored (a server variant) or set to 1 ms,
// h2 locks at about 30 s while h1 still believes: P1 is violated. A server
// that invalidates at half the TTL (a variant below the documented lower
// bound) lets h2 lock at about 22.5 s: P1 is violated.
func LockDelayStory(v DelayVariant) scenarios.Scenario {
	hs := holders(2, time.Second)
	srv := DefaultServer
	switch v {
	case DelayIgnored:
		srv.IgnoreLockDelay = true
	case DelayShort:
		for i := range hs {
			hs[i].LockDelay = time.Millisecond
		}
	case EarlyInvalidation:
		srv.TTLMultiplier = 0.5
	}
	for i := range hs {
		hs[i].Hold = time.Hour
	}
	return scenarios.Scenario{
		Name:  "consul-lock-delay/" + v.String(),
		Doc:   "the holder is cut off past 2×TTL but heals within the lock-delay (" + v.String() + ")",
		Story: "h1 locks; h1 is isolated from 5 s to 40 s; its session expires at about 30 s; h2 may lock after the lock-delay; h1 learns at the heal.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: hs, Token: ModifyIndex, Server: srv, Duration: 120 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 40 * time.Second, Events: []faults.Event{
					{At: 5 * time.Second, Kind: faults.KindIsolate, Node: "h1"}}}}.Config()
		},
		Premises: []scenarios.Premise{
			scenarios.FaultWhileHolding("h1 was isolated while it held the lock", 0, []string{"h1"}, history.FaultIsolate),
			scenarios.ChangedHands(),
		},
	}
}

// ServerRestart is a leader failover of a one-server Consul: it crashes
// at 10 s while h1 holds the lock and h2 waits, restarts at 12 s with its
// durable state, elects itself leader a second later and, as a new leader
// does, restarts every session's TTL timer. With MonitorRetries 0, h1's
// monitor gives up on the first failed query: h1 stops believing
// (safely) and unlocks, its session lingers until it expires, and h2
// locks after the TTL and the lock-delay. With 3 retries 2 s apart h1
// rides the failover out and keeps the lock. P1 holds either way.
func ServerRestart(retries int) scenarios.Scenario {
	hs := holders(2, time.Second)
	for i := range hs {
		hs[i].MonitorRetries = retries
		hs[i].Hold = 40 * time.Second
	}
	name := fmt.Sprintf("monitor-retries-%d", retries)
	return scenarios.Scenario{
		Name:  "consul-server-restart/" + name,
		Doc:   "the Consul server fails over while h1 holds the lock (" + name + ")",
		Story: "h1 holds the lock, h2 waits; the server crashes at 10 s, restarts at 12 s and has a leader at 13 s, which renews every session.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: hs, Token: ModifyIndex, Server: DefaultServer, Duration: 120 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 20 * time.Second, Events: []faults.Event{
					{At: 10 * time.Second, Kind: faults.KindCrash, Node: ServerNode},
					{At: 12 * time.Second, Kind: faults.KindRestart, Node: ServerNode}}}}.Config()
		},
		Premises: []scenarios.Premise{ServerCrashedWhileHeld()},
	}
}

// GCPause is Kleppmann's story with api.Lock: h1 holds the lock and,
// between checking its lost channel and writing, stops for 60 s (its I/O
// frozen), longer than twice the TTL and the lock-delay (45 s). Its
// session expires, h2 locks and writes; h1 wakes and sends the write it
// decided on. Both believed at once (P1 violated whatever the token);
// without a token the store takes h1's stale write (P2 violated), with the
// key's ModifyIndex or LockIndex it refuses it.
func GCPause(t Token) scenarios.Scenario {
	return scenarios.Scenario{
		Name:  "consul-gc-pause/" + t.String(),
		Doc:   "a pause longer than 2×TTL + lock-delay between checking the lock and writing (" + t.String() + ")",
		Story: "h1 holds the lock and pauses at its write for 60 s; its session expires, h2 locks; h1 wakes and writes.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: holders(2, time.Second), Token: t, Server: DefaultServer, Duration: 120 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 70 * time.Second, Events: []faults.Event{{
					At: 3 * time.Second, Kind: faults.KindFailpoint, Node: "h1", Failpoint: FailpointBeforeWrite,
					Action: faults.ActionPause, Duration: 60 * time.Second}}}}.Config()
		},
		Premises: []scenarios.Premise{
			scenarios.FailpointHit("h1", FailpointBeforeWrite),
			scenarios.FaultWhileHolding("h1 paused at its write while it held the lock", 0, []string{"h1"}, history.FaultFailpointHit),
			scenarios.ChangedHands(),
		},
	}
}

// Herd is ten holders contending for the lock for three minutes with no
// fault: each holds it 5 s and unlocks, and every waiter's blocking query
// wakes at each hand-over. With api.Lock and the ModifyIndex token P1, P2
// and P4 must hold. With api.Semaphore (limit 1) the holders have no
// token, so P2 fails as soon as the lock changes hands, and nothing else
// may.
func Herd(p Primitive) scenarios.Scenario {
	hs := holders(10, 100*time.Millisecond)
	for i := range hs {
		hs[i].Primitive = p
		hs[i].Hold = 5 * time.Second
	}
	name, tok := "lock-modify-index", ModifyIndex
	if p == UseSemaphore {
		name, tok = "semaphore-no-token", NoToken
	}
	return scenarios.Scenario{
		Name:  "consul-herd/" + name,
		Doc:   "ten holders contend for the lock (" + name + ")",
		Story: "h1…h10 lock, hold 5 s, write, unlock and lock again, for three minutes, with no fault.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: hs, Token: tok, Server: DefaultServer, Duration: 180 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 120 * time.Second}}.Config()
		},
		Premises: []scenarios.Premise{scenarios.ChangedHands()},
	}
}

// ServerCrashedWhileHeld holds when the Consul node crashed while some
// holder believed it held the lock.
func ServerCrashedWhileHeld() scenarios.Premise {
	return scenarios.FaultWhileLeaseLive("consul crashed while a holder held the lock", []string{history.FaultCrash}, ServerNode)
}

// Contention is three holders contending for the lock for four minutes
// while a nemesis partitions, isolates, pauses and crashes holders and the
// server (a server crash is a failover) and arms the before-write
// failpoint with a pause, windows and pauses up to 60 s: past twice the
// TTL and the lock-delay (45 s). P1 fails when a holder is cut off or
// paused past that while another locks (hashicorp/consul#18271, and
// Kleppmann's pause); without a token P2 fails wherever the lock changes
// hands; with the ModifyIndex token and the fenced store P2 must hold.
func Contention(t Token) scenarios.Scenario {
	nodes := []string{ServerNode, "h1", "h2", "h3"}
	ttl := DefaultHolder.SessionTTL
	return scenarios.Scenario{
		Name:  "consul-contention/" + t.String(),
		Doc:   "three holders contend under partitions, pauses, crashes and failovers (" + t.String() + ")",
		Story: "h1, h2 and h3 lock, write and unlock in turn for four minutes while a nemesis cuts, freezes and crashes them and the server.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: holders(3, 700*time.Millisecond), Token: t, Server: DefaultServer, Duration: 4 * time.Minute}.Config()
		},
		Nemesis: &faults.Nemesis{Targets: nodes, Partitionable: nodes,
			Kinds:      []faults.Kind{faults.KindPartition, faults.KindIsolate, faults.KindPause, faults.KindCrash, faults.KindFailpoint},
			Failpoints: []string{FailpointBeforeWrite}, FaultsPerMinute: 4, Phase: 150 * time.Second, PauseMax: 60 * time.Second,
			WindowMax:  60 * time.Second,
			Boundaries: []time.Duration{ttl, 2 * ttl, 2*ttl + DefaultLockDelay}},
		Premises: []scenarios.Premise{scenarios.ChangedHands()},
	}
}
