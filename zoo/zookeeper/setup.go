package zookeeper

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// Setup is one run's cast: the simulated ZooKeeper, the shared fenced
// store and the holders h1, h2, … in order, all with the same token and
// belief rule.
type Setup struct {
	Holders []HolderConfig
	Token   Token
	LostOn  LostOn
	// CleanOrphans is HolderConfig.CleanOrphans for every holder.
	CleanOrphans bool
	Server       ServerOptions
	Duration     time.Duration
	Schedule     faults.Schedule
}

// Spec is the specification the server's operations are judged by (P3):
// model.ZooKeeperSessionSpec, with the invalidation bound leaseOf
// declares.
const Spec = "zookeeper-session"

// stopBeforeEnd is how long before the end of the run the holders stop
// and close their sessions (HolderConfig.Stop).
const stopBeforeEnd = 3 * time.Second

// HolderName is the i-th holder's node name (from 0: "h1").
func HolderName(i int) string { return fmt.Sprintf("h%d", i+1) }

// Config is the gohost run of the setup.
func (s Setup) Config() gohost.Config {
	cfg := gohost.Config{Duration: s.Duration, Schedule: s.Schedule, SeedCryptoRand: true,
		Nodes: []gohost.NodeSpec{{Name: ZooKeeperNode, Run: Server(s.Server)},
			{Name: StoreNode, Run: gohost.FencedStore(gohost.StoreOptions{Unfenced: s.Token == NoToken})}},
		History: gohost.HistoryConfig{Spec: Spec, Grantor: ZooKeeperNode, FencedStore: StoreNode}}
	for i, h := range s.Holders {
		h.Token, h.LostOn, h.CleanOrphans = s.Token, s.LostOn, s.CleanOrphans
		h.Stop = s.Duration - stopBeforeEnd
		cfg.Nodes = append(cfg.Nodes, gohost.NodeSpec{Name: HolderName(i), Run: Holder(h)})
	}
	if len(s.Holders) > 0 {
		cfg.History.Lease = leaseOf(s.Holders[0], s.Server.withDefaults())
	}
	if len(s.Holders) > 1 {
		// The holders lock again after every unlock or failed Lock, for
		// the whole run: P4 requires the lock held again after the heal.
		cfg.History.Contended = []string{LockPath}
	}
	return cfg
}

// leaseOf states the lease facts the checkers read. The TTL is the
// negotiated session timeout; the server holds a session up to one tick
// beyond it (expiry on the next tick boundary), which HoldPPB says,
// rounded up so that the hold it gives is never below the tick: the
// invalidation bound P3's specification reads. The
// client's derived timeouts (zk.Conn.setTimeouts): a request or ping
// reply is awaited recvTimeout = 2/3 of the session timeout, and it pings
// every half of that. BackoffMax is the holder's idle after a failed Lock
// plus the second go-zookeeper waits before it dials again.
func leaseOf(h HolderConfig, opts ServerOptions) history.Lease {
	ttl := min(max(h.SessionTimeout, opts.MinSessionTimeout), opts.MaxSessionTimeout)
	recv := ttl * 2 / 3
	return history.Lease{TTL: ttl, HoldPPB: (int64(opts.Tick)*1_000_000_000 + int64(ttl) - 1) / int64(ttl),
		RenewInterval: recv / 2, RequestTimeout: recv, BackoffMax: h.Idle + time.Second}
}
