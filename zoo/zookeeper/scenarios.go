package zookeeper

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// holders returns n default holders starting stagger apart from 1 s.
func holders(n int, stagger time.Duration) []HolderConfig {
	out := make([]HolderConfig, n)
	for i := range out {
		out[i] = DefaultHolder
		out[i].Start = time.Second + time.Duration(i)*stagger
	}
	return out
}

// withSession returns hs with every session timeout set to t.
func withSession(hs []HolderConfig, t time.Duration) []HolderConfig {
	for i := range hs {
		hs[i].SessionTimeout = t
	}
	return hs
}

// SessionTimeouts are the session timeouts the stories run with as a
// configuration: ZooKeeper's smallest default (2 ticks), the holders'
// default, and a longer one a user might pick.
var SessionTimeouts = []time.Duration{4 * time.Second, 6 * time.Second, 10 * time.Second}

// Scenarios returns every story of the module, each in the
// configurations it is told in.
func Scenarios() []scenarios.Scenario {
	var out []scenarios.Scenario
	for _, l := range []LostOn{OnExpired, OnDisconnected} {
		for _, t := range SessionTimeouts {
			out = append(out, SessionCutOff(l, t))
		}
	}
	out = append(out, OrphanNode(false), OrphanNode(true))
	out = append(out, ServerRestart())
	for _, tok := range []Token{NoToken, SeqToken, CzxidToken} {
		out = append(out, GCPause(tok))
	}
	out = append(out, Herd(OnExpired, false), Herd(OnDisconnected, false), Herd(OnDisconnected, true))
	return out
}

// SessionCutOff is samuel/go-zookeeper#20: h1 holds the lock and is cut
// off from ZooKeeper (not from the store) for twice its session timeout
// plus a tick. ZooKeeper expires the session at a tick boundary after the
// timeout, deletes h1's lock node and h2, watching it, takes the lock.
// go-zookeeper tells h1 its session expired only when it reconnects after
// the heal: a holder that believes until StateExpired (until-expired)
// believes while h2 holds (P1 violated) and writes on; the store, fenced
// by the lock node's czxid, refuses those writes once h2 wrote. A holder
// that stops believing at StateDisconnected (until-disconnected) does so
// recvTimeout = 2/3 of the session timeout after the last reply, before
// the server can expire the session: P1 holds.
func SessionCutOff(l LostOn, timeout time.Duration) scenarios.Scenario {
	cut := 2*timeout + 2*time.Second
	at := 3 * time.Second
	name := fmt.Sprintf("%s-%v", l, timeout)
	return scenarios.Scenario{
		Name:  "zookeeper-session-cutoff/" + name,
		Doc:   fmt.Sprintf("h1 is cut off from ZooKeeper past its %v session while h2 waits (%s)", timeout, l),
		Story: fmt.Sprintf("h1 holds the lock; at %v it is cut off from ZooKeeper (not the store) for %v; the session expires, h2 locks; the cut heals.", at, cut),
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: withSession(holders(2, time.Second), timeout), Token: CzxidToken, LostOn: l,
				Server: ServerOptions{Paths: []string{LockPath}}, Duration: at + cut + 40*time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: at + cut, Events: []faults.Event{
					{At: at, Kind: faults.KindPartition, Groups: [][]string{{"h1"}, {ZooKeeperNode}}}}}}.Config()
		},
		Premises: []scenarios.Premise{
			scenarios.FaultWhileHolding("h1 was cut off from ZooKeeper while it held the lock", 0, []string{"h1"}, history.FaultPartition),
			scenarios.ChangedHands(),
		},
	}
}

// OrphanNode is samuel/go-zookeeper#229: h1's create of its lock node is
// performed by ZooKeeper, but the reply is lost (the reply-lost trigger
// armed on the server resets the connection) and h1 is cut off from
// ZooKeeper from 1.1 s to 5 s, within its 6 s session. zk.Lock's protected create
// lists the lock's children to find its node, but that request fails
// (ErrNoServer: the client gives up on unsent requests when it cannot
// reconnect) and Lock returns an error. The node stays, an ephemeral of
// h1's live session (h1 reconnects within the timeout and keeps pinging):
// it has the lowest sequence number, nobody owns it, and every contender,
// h1's next Lock included, waits for it forever. P4 reports the lock never
// held again after the heal.
//
// With clean set (the cleanup configuration), the holders do what PR #237
// there proposes inside go-zookeeper: after a failed Lock, a holder deletes
// the lock nodes its own session owns before it locks again, and the lock
// is held again once h1 reconnects.
func OrphanNode(clean bool) scenarios.Scenario {
	name, doc := "czxid", "a create whose reply is lost leaves an orphan lock node that blocks every contender"
	if clean {
		name, doc = "cleanup", "a create whose reply is lost, with holders that delete their session's orphans after a failed Lock"
	}
	return scenarios.Scenario{
		Name:  "zookeeper-orphan-node/" + name,
		Doc:   doc,
		Story: "h1 locks at 1 s; ZooKeeper creates the node but the reply is lost and h1 is cut off until 5 s; Lock fails; h2 and h1 wait on the orphan.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: holders(2, 2*time.Second), Token: CzxidToken, CleanOrphans: clean,
				Server: ServerOptions{Paths: []string{LockPath}}, Duration: 45 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 5 * time.Second, Events: []faults.Event{
					{At: 500 * time.Millisecond, Kind: faults.KindFailpoint, Node: ZooKeeperNode,
						Failpoint: gohost.TriggerReplyLost, Action: faults.ActionCrash},
					{At: 1100 * time.Millisecond, Kind: faults.KindPartition, Groups: [][]string{{"h1"}, {ZooKeeperNode}}}}}}.Config()
		},
		Premises: []scenarios.Premise{scenarios.FailpointHit(ZooKeeperNode, gohost.TriggerReplyLost), NobodyHeldBefore(time.Second)},
	}
}

// NobodyHeldBefore holds when no holder believed it held the lock before
// t: the lost reply was the first Lock's.
func NobodyHeldBefore(t time.Duration) scenarios.Premise {
	return scenarios.Premise{Name: fmt.Sprintf("nobody held the lock before %v", t), Holds: func(h *history.History) (bool, string) {
		for _, b := range h.Beliefs {
			if b.Start < history.Time(t) {
				return false, fmt.Sprintf("%s believed from %v", b.Holder, b.Start)
			}
		}
		return true, "the lost reply was to the first Lock"
	}}
}

// ServerRestart crashes ZooKeeper while h1 holds the lock and restarts it
// a second later; h2 is waiting. The tree and the sessions are durable
// (ZooKeeper's transaction log): the restarted server reopens every
// session with a full timeout, h1 and h2 reconnect to their sessions
// (their watches re-registered with setWatches), and the lock stays h1's.
func ServerRestart() scenarios.Scenario {
	return scenarios.Scenario{
		Name:  "zookeeper-server-restart/durable",
		Doc:   "ZooKeeper crashes and restarts while h1 holds the lock",
		Story: "h1 holds the lock, h2 waits; ZooKeeper crashes at 5 s and restarts at 6 s.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: holders(2, time.Second), Token: CzxidToken, Duration: 40 * time.Second,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 10 * time.Second, Events: []faults.Event{
					{At: 5 * time.Second, Kind: faults.KindCrash, Node: ZooKeeperNode},
					{At: 6 * time.Second, Kind: faults.KindRestart, Node: ZooKeeperNode}}}}.Config()
		},
		Premises: []scenarios.Premise{ServerCrashedWhileHeld()},
	}
}

// ServerCrashedWhileHeld holds when ZooKeeper crashed while some holder
// believed it held the lock.
func ServerCrashedWhileHeld() scenarios.Premise {
	return scenarios.FaultWhileLeaseLive("zookeeper crashed while a holder held the lock", []string{history.FaultCrash}, ZooKeeperNode)
}

// GCPause is Kleppmann's story ("How to do distributed locking", 2016)
// with zk.Lock: h1 holds the lock and, between checking that it still
// holds it and writing, stops for twice its session timeout plus two
// ticks (its I/O frozen: no ping leaves). ZooKeeper expires the session,
// deletes h1's node, h2 locks and writes. h1 wakes and sends the write it
// decided on. P1 is violated whatever the token; without one the store
// takes h1's stale write (P2), with the lock node's sequence number or
// czxid as the token it refuses it.
func GCPause(tok Token) scenarios.Scenario {
	pause := 2*DefaultHolder.SessionTimeout + 4*time.Second
	return scenarios.Scenario{
		Name:  "zookeeper-gc-pause/" + tok.String(),
		Doc:   "a pause longer than the session between checking the lock and writing (" + tok.String() + ")",
		Story: "h1 holds the lock and pauses at its write for twice the session timeout; the session expires, h2 locks; h1 wakes and writes.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Holders: holders(2, time.Second), Token: tok, Server: ServerOptions{Paths: []string{LockPath}},
				Duration: 60 * time.Second,
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

// HerdSize is how many holders contend in the herd.
const HerdSize = 10

// Herd is ten holders contending for the lock for a minute while a
// nemesis partitions, isolates and pauses holders and ZooKeeper (pauses
// and cuts up to twice the session timeout), with the czxid token and the
// fenced store. Each release wakes only the next node in line (zk.Lock
// watches its predecessor, not the parent). Until-expired holders break
// P1 whenever a cut outlasts a holder's session (#20); P2 must hold; a
// create performed but never answered leaves an orphan that blocks the
// queue (#229) unless the holders clean their session's orphans (clean).
func Herd(l LostOn, clean bool) scenarios.Scenario {
	nodes := []string{ZooKeeperNode}
	for i := range HerdSize {
		nodes = append(nodes, HolderName(i))
	}
	timeout := DefaultHolder.SessionTimeout
	name := l.String()
	if clean {
		name += "-cleanup"
	}
	return scenarios.Scenario{
		Name:  "zookeeper-herd/" + name,
		Doc:   "ten holders contend under partitions and pauses (" + name + ")",
		Story: "h1 … h10 lock, write and unlock in turn, each waiting on its predecessor's node, while a nemesis cuts and freezes them and ZooKeeper.",
		Goroutines: func(uint64) gohost.Config {
			hs := holders(HerdSize, 100*time.Millisecond)
			for i := range hs {
				hs[i].Hold = 8 * time.Second // beyond the session's hold (6 s + a tick)
			}
			return Setup{Holders: hs, Token: CzxidToken, LostOn: l, CleanOrphans: clean,
				Server: ServerOptions{Paths: []string{LockPath}}, Duration: 100 * time.Second}.Config()
		},
		Nemesis: &faults.Nemesis{Targets: nodes, Partitionable: nodes,
			Kinds:           []faults.Kind{faults.KindPartition, faults.KindIsolate, faults.KindPause},
			FaultsPerMinute: 6, Phase: 60 * time.Second, PauseMax: 2 * timeout, WindowMax: 2*timeout + 2*time.Second,
			Boundaries: []time.Duration{timeout, timeout * 2 / 3, timeout / 3}},
		Premises: []scenarios.Premise{scenarios.ChangedHands()},
	}
}
