package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// LockPath is the lock's znode (zk.NewLock's path): its children are the
// contenders' ephemeral sequential nodes. It is also the resource the
// holders believe they hold and write under.
const LockPath = "/lock"

// FailpointBeforeWrite is the failpoint between a holder's check that it
// still holds the lock and its write: the Kleppmann pause lands here.
const FailpointBeforeWrite = "before-write"

// The nodes of every story here.
const (
	ZooKeeperNode = "zk"
	StoreNode     = "store"
)

// Token is what a holder writes to the fenced store under.
type Token uint8

const (
	// NoToken: zk.Lock as it is. The writes carry token 0 to a store that
	// accepts every write.
	NoToken Token = iota
	// SeqToken: the lock node's sequence number (the ten digits ZooKeeper
	// appended, the parent's cversion when it was created).
	SeqToken
	// CzxidToken: the lock node's czxid, the zxid of the transaction that
	// created it, read with Exists after Lock returns.
	CzxidToken
)

// String names the token as scenario names use it.
func (t Token) String() string { return [...]string{"no-token", "seq", "czxid"}[t] }

// LostOn is the session state at which a holder stops believing.
type LostOn uint8

const (
	// OnExpired: the holder believes until the client reports the session
	// expired (zk.StateExpired), the only event that says the lock node is
	// gone. go-zookeeper reports it when it reconnects and the server
	// refuses the session (samuel/go-zookeeper#20).
	OnExpired LostOn = iota
	// OnDisconnected: the holder stops believing as soon as the client
	// loses its connection (zk.StateDisconnected), as Curator's recipes
	// advise (a SUSPENDED connection may have lost the lock).
	OnDisconnected
)

// String names the rule as scenario names use it.
func (l LostOn) String() string { return [...]string{"until-expired", "until-disconnected"}[l] }

// HolderConfig shapes a holder's life.
type HolderConfig struct {
	// SessionTimeout is the timeout the client asks for (zk.Connect).
	SessionTimeout time.Duration
	// Start is when the holder first calls Lock, after connecting at 0.
	Start time.Duration
	// Hold is how long it keeps the lock before Unlock; WriteEvery how
	// often it writes while it holds; Idle how long it waits after an
	// unlock or a failed Lock.
	Hold, WriteEvery, Idle time.Duration
	// WriteTimeout bounds one write to the store.
	WriteTimeout time.Duration
	// Stop is when the holder stops (0: at the end of the run), as a
	// process that exits: see holder.stop.
	Stop time.Duration
	// Token is what the writes carry; LostOn when the holder stops
	// believing.
	Token  Token
	LostOn LostOn
	// CleanOrphans makes the holder, after a failed Lock, delete every
	// node under the lock that its own session owns before it locks again:
	// the user-side form of the fix samuel/go-zookeeper PR #237 proposes
	// inside the library (#229: a create the server performed but whose
	// reply the client never read leaves a node nobody will delete).
	CleanOrphans bool
}

// DefaultHolder holds for 20 s, writing every 500 ms, with a 6 s session.
var DefaultHolder = HolderConfig{SessionTimeout: 6 * time.Second, Hold: 20 * time.Second, WriteEvery: 500 * time.Millisecond,
	Idle: time.Second, WriteTimeout: time.Second}

// Holder returns a holder's node function: one go-zookeeper session and
// zk.Lock, unchanged, on LockPath, in a loop: Lock, believe, write to the
// fenced store every WriteEvery, Unlock after Hold, idle, again.
//
// Beliefs: from Lock's return (under the token) until Unlock, or until the
// client reports the session state LostOn names (zk.WithEventCallback),
// or a write is fenced. zk.Lock itself never says the lock was lost: a
// holder that does not watch the session believes until it unlocks.
func Holder(cfg HolderConfig) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		h := &holder{n: n, cfg: cfg, store: n.NewStoreClient(StoreNode + gohost.StorePort)}
		d := &dialer{n: n}
		c, err := Connect(n, d, cfg.SessionTimeout, h.onEvent)
		if err != nil {
			return fmt.Errorf("zookeeper: connect: %w", err)
		}
		life := ctx
		if cfg.Stop > 0 {
			var cancel context.CancelFunc
			life, cancel = context.WithTimeout(ctx, cfg.Stop)
			defer cancel()
		}
		go h.run(life, c) // zk.Lock waits on a watch without a context: Close ends it
		<-life.Done()
		h.stop()
		d.stop()
		go c.Close()
		h.store.Close()
		return nil
	}
}

// holder is one life of a holder.
type holder struct {
	n     *gohost.Node
	cfg   HolderConfig
	store *gohost.StoreClient
	seq   int

	mu      sync.Mutex
	holding bool // believes it holds the lock
	token   uint64
	stopped bool // the holder stopped: no belief or write from now on
}

// stop ends the holder as a process that exits: its belief ends now and no
// other starts; then (Holder) its connection to ZooKeeper closes and no
// dial leaves (the session stays until the server expires it), and
// zk.Conn.Close ends the client's goroutines in the background, unseen by
// the network. The holder does not wait for them: go-zookeeper's Close
// waits up to a second for the reply to a close request that, racing its
// own reconnect loop, may never be sent, and the length of that wait is
// not the same in every run. A holder stopped this way before the run
// ends leaves nothing behind; a holder crashed by the schedule may (its
// zk goroutines still winding down are reported as a leak).
func (h *holder) stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.holding {
		h.holding = false
		h.n.Release(LockPath, h.token)
	}
	h.stopped = true
}

// onEvent is the client's event callback: the session state LostOn names
// ends the belief (history.EndLost).
//
// It also settles a race of go-zookeeper's own: when a connection fails,
// the reconnect loop fails the pending requests with ErrConnectionClosed
// and goes on to fail the requests not yet sent (ErrNoServer, when it has
// tried every server) after reporting StateConnecting, while a caller woken
// by the first failure may already be queueing its next request (zk.Lock's
// protected create lists the lock's children: the race behind
// samuel/go-zookeeper#229). Which comes first depends on the scheduler. At
// StateConnecting the callback sleeps one nanosecond of the bubble's clock,
// which lets every goroutine woken by the failure run first: the woken
// caller's request is always queued before the loop fails the unsent ones.
// A real client may take either order; the simulation takes this one in
// every run.
func (h *holder) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	if ev.State == zk.StateConnecting {
		time.Sleep(time.Nanosecond)
	}
	lost := ev.State == zk.StateExpired || h.cfg.LostOn == OnDisconnected && ev.State == zk.StateDisconnected
	if !lost {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.holding {
		h.holding = false
		h.n.EndBelief(LockPath, h.token, history.EndLost)
	}
}

// run locks, holds and unlocks until ctx ends.
func (h *holder) run(ctx context.Context, c *zk.Conn) {
	if !sleep(ctx, h.cfg.Start) {
		return
	}
	for ctx.Err() == nil {
		l := zk.NewLock(c, LockPath, zk.WorldACL(zk.PermAll))
		if err := l.Lock(); err != nil {
			sleep(ctx, h.cfg.Idle)
			if h.cfg.CleanOrphans {
				h.cleanOrphans(ctx, c)
			}
			continue
		}
		token, err := h.tokenOf(c)
		if err == nil {
			h.hold(ctx, token)
		}
		h.unlock(ctx, l)
		sleep(ctx, h.cfg.Idle)
	}
}

// cleanOrphans deletes the lock nodes of the holder's own session, retrying
// until a listing succeeds: after a failed Lock the holder holds nothing,
// so any such node is an orphan of that Lock.
func (h *holder) cleanOrphans(ctx context.Context, c *zk.Conn) {
	for ctx.Err() == nil {
		if err := h.deleteOwn(c); err == nil {
			return
		}
		sleep(ctx, h.cfg.Idle)
	}
}

// deleteOwn lists the lock's children and deletes those its session owns.
func (h *holder) deleteOwn(c *zk.Conn) error {
	children, _, err := c.Children(LockPath)
	if err != nil {
		return fmt.Errorf("zookeeper: children of the lock: %w", err)
	}
	for _, name := range children {
		p := LockPath + "/" + name
		ok, st, err := c.Exists(p)
		if err != nil {
			return fmt.Errorf("zookeeper: stat of %s: %w", p, err)
		}
		if !ok || st.EphemeralOwner != c.SessionID() {
			continue
		}
		if err := c.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("zookeeper: delete %s: %w", p, err)
		}
	}
	return nil
}

// tokenOf returns the fencing token of the lock node Lock created.
// zk.Lock keeps its node's path to itself, so the holder finds it as
// Lock did: the lowest sequence among LockPath's children, which must be
// an ephemeral of its own session (Exists gives its Stat: czxid and
// ephemeralOwner).
func (h *holder) tokenOf(c *zk.Conn) (uint64, error) {
	if h.cfg.Token == NoToken {
		return 0, nil
	}
	children, _, err := c.Children(LockPath)
	if err != nil {
		return 0, fmt.Errorf("zookeeper: children of the lock: %w", err)
	}
	name, seq := lowest(children)
	if name == "" {
		return 0, errLockNodeGone
	}
	ok, st, err := c.Exists(LockPath + "/" + name)
	if err != nil {
		return 0, fmt.Errorf("zookeeper: stat of the lock node: %w", err)
	}
	if !ok || st.EphemeralOwner != c.SessionID() {
		return 0, errLockNodeGone
	}
	if h.cfg.Token == SeqToken {
		return uint64(seq), nil
	}
	return uint64(st.Czxid), nil
}

// lowest returns the child with the lowest sequence number ("…lock-" and
// ten digits, as zk.Lock names its nodes), and that number.
func lowest(children []string) (string, int64) {
	name, low := "", int64(-1)
	for _, c := range children {
		i := strings.LastIndex(c, "lock-")
		if i < 0 {
			continue
		}
		seq, err := strconv.ParseInt(c[i+len("lock-"):], 10, 64)
		if err == nil && (low < 0 || seq < low) {
			name, low = c, seq
		}
	}
	return name, low
}

// errLockNodeGone is a lock node that no longer exists when its holder
// reads its czxid.
var errLockNodeGone = errors.New("lock node gone")

// hold runs one tenure: believe, then write every WriteEvery while the
// belief lasts, until Hold has passed.
func (h *holder) hold(ctx context.Context, token uint64) {
	n := h.n
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return
	}
	h.holding, h.token = true, token
	n.Believe(LockPath, token, time.Now().Add(24*time.Hour)) // zk.Lock has no deadline: until told otherwise
	h.mu.Unlock()
	acquired := time.Now()
	for ctx.Err() == nil && time.Since(acquired) < h.cfg.Hold {
		if !h.believes() {
			return
		}
		// The decision to write, on the check just made: the action counts
		// here on every host (gohost.Node.Act); a pause between the
		// decision and the write is fencing's (P2) to catch.
		n.Act(LockPath, token)
		n.Failpoint(FailpointBeforeWrite) // between the check and the write
		if ctx.Err() != nil {
			return
		}
		h.seq++
		wctx, cancel := context.WithTimeout(ctx, h.cfg.WriteTimeout)
		err := h.store.Write(wctx, LockPath, token, "data", fmt.Sprintf("%s/%d-%d", n.Name(), n.Incarnation(), h.seq))
		cancel()
		if errors.Is(err, gohost.ErrFenced) {
			h.end(history.EndFenced)
			return
		}
		if !sleep(ctx, h.cfg.WriteEvery) {
			return
		}
	}
	h.end(history.EndRelease)
}

// believes reports whether the holder still believes it holds the lock.
func (h *holder) believes() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.holding
}

// end ends the belief for reason, if it still lasts.
func (h *holder) end(reason history.EndReason) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.holding {
		h.holding = false
		h.n.EndBelief(LockPath, h.token, reason)
	}
}

// unlock deletes the lock node, retrying while the connection is down (a
// node left behind on a live session would block every later Lock,
// the holder's own included); a node already gone (its session expired)
// is done.
func (h *holder) unlock(ctx context.Context, l *zk.Lock) {
	for ctx.Err() == nil {
		err := l.Unlock()
		if err == nil || errors.Is(err, zk.ErrNoNode) || errors.Is(err, zk.ErrNotLocked) || errors.Is(err, zk.ErrSessionExpired) {
			return
		}
		sleep(ctx, h.cfg.Idle)
	}
}

// sleep waits d or until ctx ends, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
