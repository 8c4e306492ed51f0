package ttllock

import (
	"context"
	"fmt"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// TTL is the lock's TTL in the stories.
const TTL = 2 * time.Second

// run is a run of the lock service: the server, the store (fenced unless
// unfenced) and the clients h1, h2, … in order.
func run(duration time.Duration, schedule faults.Schedule, unfenced bool, clients ...Client) gohost.Config {
	return runWith(Server(TTL), duration, schedule, unfenced, clients...)
}

// runWith is run with the given lock server.
func runWith(server func(context.Context, *gohost.Node) error, duration time.Duration, schedule faults.Schedule,
	unfenced bool, clients ...Client) gohost.Config {
	cfg := gohost.Config{Duration: duration, Schedule: schedule,
		Nodes: []gohost.NodeSpec{{Name: ServerNode, Run: server},
			{Name: StoreNode, Run: gohost.FencedStore(gohost.StoreOptions{Unfenced: unfenced})}},
		History: gohost.HistoryConfig{Grantor: ServerNode, FencedStore: StoreNode, Lease: history.Lease{TTL: TTL},
			Contended: []string{Resource}}}
	for i, c := range clients {
		cfg.Nodes = append(cfg.Nodes, gohost.NodeSpec{Name: holder(i), Run: c.Run})
	}
	return cfg
}

// holder is the i-th client's node name (from 0: "h1").
func holder(i int) string { return fmt.Sprintf("h%d", i+1) }

// Kleppmann is the GC-pause story of scenarios.KleppmannGCPause told with
// this lock: h1 holds the lock and, between deciding to write and
// writing, freezes for twice the TTL; h2 acquires and writes under a
// higher token; h1 wakes and sends its write under the old token, which
// the fenced store refuses. P1 holds (h1 decided while it held the lock
// and stopped believing at its deadline) and P2 holds (the store fenced
// the stale write), as on the event host.
func Kleppmann() scenarios.Scenario { return kleppmann(false) }

// KleppmannUnfenced is Kleppmann against a store that takes every write,
// whatever its token: h1's stale write is accepted after h2's, and P2 says
// so (a lock without fencing is no protection against the pause).
func KleppmannUnfenced() scenarios.Scenario {
	sc := kleppmann(true)
	sc.Name, sc.Doc = sc.Name+"-unfenced", "the Kleppmann pause against a store that does not fence"
	return sc
}

func kleppmann(unfenced bool) scenarios.Scenario {
	return scenarios.Scenario{
		Name: "ttllock-kleppmann-gc-pause",
		Doc:  "a GC pause between deciding to write and writing; the stale write is fenced",
		Story: "h1 holds the lock and freezes for twice the TTL between deciding to write and writing. The lock " +
			"expires, h2 acquires it and writes under a higher token; h1 wakes up and sends its write under " +
			"the old token, and the store refuses it.",
		Goroutines: func(uint64) gohost.Config {
			return run(30*time.Second, faults.Schedule{Version: faults.Version, HealAt: 15 * time.Second,
				Events: []faults.Event{{At: 3 * time.Second, Kind: faults.KindFailpoint, Node: "h1",
					Failpoint: FailpointBeforeWrite, Action: faults.ActionPause, Duration: 2 * TTL}}}, unfenced,
				Client{TTL: TTL, Hold: time.Hour}, Client{TTL: TTL, Start: time.Second, Hold: 3 * time.Second})
		},
		Premises: []scenarios.Premise{
			scenarios.FailpointHit("h1", FailpointBeforeWrite),
			scenarios.FaultWhileHolding("h1 was paused longer than the TTL while it held the lock", TTL,
				[]string{"h1"}, history.FaultPause),
		},
	}
}

// SessionAgeHandover is the story a session-age fencing token gets wrong,
// told with SessionTokenServer: h1 (the older session, token 1) locks,
// writes and releases; h2 (token 2) locks and freezes before its first
// write for three TTLs; its lock expires, h1 locks again and writes under
// 1; h2 wakes and its write under 2 lands after h1's. Every token the
// store accepted was at least the one before, so only P2's rule on the
// order the lock changed hands sees the stale write: P2 is violated.
func SessionAgeHandover() scenarios.Scenario { return sessionAgeHandover(true) }

// SessionAgeHandoverFenced is SessionAgeHandover with tokens numbered per
// acquisition (Server): h1's second grant gets token 3, and the store
// refuses h2's write under 2.
func SessionAgeHandoverFenced() scenarios.Scenario {
	sc := sessionAgeHandover(false)
	sc.Name, sc.Doc = sc.Name+"-fenced", "the session-age hand-over with a token drawn per acquisition"
	return sc
}

func sessionAgeHandover(sessionTokens bool) scenarios.Scenario {
	server := Server(TTL)
	if sessionTokens {
		server = SessionTokenServer(TTL)
	}
	return scenarios.Scenario{
		Name: "ttllock-session-age-handover",
		Doc:  "the lock passes back to an older session while a younger one is paused before its write",
		Story: "h1 locks, writes and releases; h2 locks and freezes before its first write for three TTLs; " +
			"h1 locks again and writes; h2 wakes and writes.",
		Goroutines: func(uint64) gohost.Config {
			return runWith(server, 30*time.Second, faults.Schedule{Version: faults.Version, HealAt: 15 * time.Second,
				Events: []faults.Event{{At: 1500 * time.Millisecond, Kind: faults.KindFailpoint, Node: "h2",
					Failpoint: FailpointBeforeWrite, Action: faults.ActionPause, Duration: 3 * TTL}}}, false,
				Client{TTL: TTL, Hold: 2 * time.Second}, Client{TTL: TTL, Start: time.Second, Hold: 3 * time.Second})
		},
		Premises: []scenarios.Premise{
			scenarios.FailpointHit("h2", FailpointBeforeWrite),
			scenarios.FaultWhileHolding("h2 was paused longer than the TTL while it held the lock", TTL,
				[]string{"h2"}, history.FaultPause),
		},
	}
}
