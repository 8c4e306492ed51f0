package zookeeper

import (
	"bufio"
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// No test here is parallel: the runs seed the process-global crypto/rand
// (gohost.Config.SeedCryptoRand, testing/cryptotest).

// session runs body on a node "c" with a plain go-zookeeper session to the
// simulated ZooKeeper (and a second node "w" running watcher, if set),
// for d of simulated time, and requires a clean run.
func runSession(t *testing.T, d time.Duration, timeout time.Duration, body, watcher func(ctx context.Context, n *gohost.Node, c *zk.Conn)) gohost.Result {
	t.Helper()
	client := func(f func(ctx context.Context, n *gohost.Node, c *zk.Conn)) func(ctx context.Context, n *gohost.Node) error {
		return func(ctx context.Context, n *gohost.Node) error {
			dl := &dialer{n: n}
			c, err := Connect(n, dl, timeout, func(zk.Event) {})
			if err != nil {
				return err
			}
			f(ctx, n, c)
			dl.stop()
			go c.Close()
			return nil
		}
	}
	cfg := gohost.Config{Duration: d, SeedCryptoRand: true,
		Nodes: []gohost.NodeSpec{{Name: ZooKeeperNode, Run: Server(ServerOptions{Paths: []string{LockPath}})},
			{Name: "c", Run: client(body)}}}
	if watcher != nil {
		cfg.Nodes = append(cfg.Nodes, gohost.NodeSpec{Name: "w", Run: client(watcher)})
	}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	return res
}

// The connect reply carries the negotiated timeout, clamped to [2, 20]
// ticks, a session id and a 16-byte password; reconnecting with a wrong
// password gets the expired answer (session id 0). Spoken raw, in jute.
func TestSessionNegotiation(t *testing.T) {
	for _, tt := range []struct {
		ask, want time.Duration
	}{
		{time.Second, 4 * time.Second},     // below 2 ticks: raised
		{6 * time.Second, 6 * time.Second}, // within the bounds
		{time.Minute, 40 * time.Second},    // above 20 ticks: lowered
	} {
		t.Run(tt.ask.String(), func(t *testing.T) {
			var got, again connectReply
			cfg := gohost.Config{Duration: 5 * time.Second,
				Nodes: []gohost.NodeSpec{{Name: ZooKeeperNode, Run: Server(ServerOptions{})},
					{Name: "c", Run: func(ctx context.Context, n *gohost.Node) error {
						got = rawConnect(ctx, t, n, 0, int32(tt.ask/time.Millisecond), nil)
						again = rawConnect(ctx, t, n, got.sessionID, int32(tt.ask/time.Millisecond), []byte("wrong password!!"))
						return nil
					}}}}
			res := gohost.Run(t, cfg, 1)
			require.NoError(t, res.Err())
			assert.Equal(t, int32(tt.want/time.Millisecond), got.timeoutMs)
			assert.NotZero(t, got.sessionID)
			assert.Len(t, got.passwd, 16)
			assert.Zero(t, again.sessionID, "a wrong password is an expired session")
		})
	}
}

// connectReply is a decoded ConnectResponse.
type connectReply struct {
	timeoutMs int32
	sessionID int64
	passwd    []byte
}

// rawConnect sends one ConnectRequest on a new connection and decodes the
// reply.
func rawConnect(ctx context.Context, t *testing.T, n *gohost.Node, id int64, timeoutMs int32, passwd []byte) connectReply {
	c, err := n.Dial(ctx, "tcp", ServerAddr)
	if !assert.NoError(t, err) {
		return connectReply{}
	}
	defer c.Close()
	var e encoder
	e.int32(0)
	e.int64(0)
	e.int32(timeoutMs)
	e.int64(id)
	e.buffer(append(passwd, make([]byte, 16-len(passwd))...))
	_, err = c.Write(frame(e.b))
	assert.NoError(t, err)
	pkt, err := readPacket(bufio.NewReader(c))
	if !assert.NoError(t, err) {
		return connectReply{}
	}
	d := decoder{b: pkt}
	d.int32("protocolVersion")
	r := connectReply{timeoutMs: d.int32("timeOut"), sessionID: d.int64("sessionId"), passwd: d.buffer("passwd")}
	assert.False(t, d.bool("readOnly"))
	assert.NoError(t, d.err)
	return r
}

func TestTreeOperations(t *testing.T) {
	runSession(t, 10*time.Second, 6*time.Second, func(ctx context.Context, n *gohost.Node, c *zk.Conn) {
		acl := zk.WorldACL(zk.PermAll)
		p, err := c.Create(LockPath+"/seq-", []byte("a"), zk.FlagSequence, acl)
		if !assert.NoError(t, err) {
			return
		}
		assert.Equal(t, LockPath+"/seq-0000000000", p, "the parent's cversion, ten digits")
		p2, err := c.Create(LockPath+"/seq-", nil, zk.FlagSequence|zk.FlagEphemeral, acl)
		if !assert.NoError(t, err) {
			return
		}
		assert.Equal(t, LockPath+"/seq-0000000001", p2)
		_, err = c.Create(p, nil, 0, acl)
		assert.ErrorIs(t, err, zk.ErrNodeExists)
		_, err = c.Create("/missing/x", nil, 0, acl)
		assert.ErrorIs(t, err, zk.ErrNoNode)
		_, err = c.Create(p2+"/child", nil, 0, acl)
		assert.ErrorIs(t, err, zk.ErrNoChildrenForEphemerals)
		_, err = c.Create("/noacl", nil, 0, nil)
		assert.ErrorIs(t, err, zk.ErrInvalidACL)

		data, st, err := c.Get(p)
		if !assert.NoError(t, err) {
			return
		}
		assert.Equal(t, []byte("a"), data)
		assert.Zero(t, st.EphemeralOwner)
		_, st2, err := c.Get(p2)
		if !assert.NoError(t, err) {
			return
		}
		assert.Equal(t, c.SessionID(), st2.EphemeralOwner)
		assert.Greater(t, st2.Czxid, st.Czxid, "each transaction has the next zxid")

		children, pst, err := c.Children(LockPath)
		if !assert.NoError(t, err) {
			return
		}
		assert.Equal(t, []string{"seq-0000000000", "seq-0000000001"}, children)
		assert.Equal(t, int32(2), pst.Cversion)
		assert.Equal(t, int32(2), pst.NumChildren)

		_, err = c.Set(p, []byte("b"), 7)
		assert.ErrorIs(t, err, zk.ErrBadVersion)
		st3, err := c.Set(p, []byte("b"), 0)
		if !assert.NoError(t, err) {
			return
		}
		assert.Equal(t, int32(1), st3.Version)
		assert.ErrorIs(t, c.Delete(p, 0), zk.ErrBadVersion)
		assert.ErrorIs(t, c.Delete(LockPath, -1), zk.ErrNotEmpty)
		assert.NoError(t, c.Delete(p, 1))
		ok, _, err := c.Exists(p)
		assert.NoError(t, err)
		assert.False(t, ok)
	}, nil)
}

// A session that stops pinging expires on the server's clock, a tick
// boundary after its timeout: its ephemeral node is deleted and a watcher
// on it (another session) is told.
func TestExpiryDeletesEphemeralsAndNotifies(t *testing.T) {
	var deletedAt time.Duration
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) // where a synctest bubble's clock starts
	runSession(t, 30*time.Second, 4*time.Second, func(ctx context.Context, n *gohost.Node, c *zk.Conn) {
		_, err := c.Create(LockPath+"/e-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
		assert.NoError(t, err)
	}, func(ctx context.Context, n *gohost.Node, c *zk.Conn) {
		children, _, ch, err := c.ChildrenW(LockPath)
		for err == nil && len(children) == 0 { // until c's node appears
			select {
			case <-ch:
			case <-ctx.Done():
				t.Error("no child before the end of the run")
				return
			}
			children, _, ch, err = c.ChildrenW(LockPath)
		}
		if !assert.NoError(t, err) {
			return
		}
		p := LockPath + "/" + children[0]
		ok, _, ech, err := c.ExistsW(p)
		if !assert.NoError(t, err) || !assert.True(t, ok) {
			return
		}
		select {
		case ev := <-ech:
			assert.Equal(t, zk.EventNodeDeleted, ev.Type)
			assert.Equal(t, p, ev.Path)
			deletedAt = time.Since(start)
		case <-ctx.Done():
			t.Error("no NodeDeleted before the end of the run")
		}
	})
	// "c" stopped (cut its connection) just after creating the node, at
	// about 10 ms: its session is last heard then and expires at the first
	// 2 s tick boundary after 4 s, i.e. at 6 s.
	assert.InDelta(t, 6*time.Second, deletedAt, float64(50*time.Millisecond), "deleted at %v", deletedAt)
}

// A restarted server keeps its tree and its sessions (durable Storage):
// a client reconnects to its session and finds its ephemeral node.
func TestRestartKeepsTreeAndSessions(t *testing.T) {
	var before, after int64
	var owner int64
	cfg := gohost.Config{Duration: 20 * time.Second, SeedCryptoRand: true,
		Schedule: mustSchedule(t, 3*time.Second, 4*time.Second),
		Nodes: []gohost.NodeSpec{{Name: ZooKeeperNode, Run: Server(ServerOptions{Paths: []string{LockPath}})},
			{Name: "c", Run: func(ctx context.Context, n *gohost.Node) error {
				dl := &dialer{n: n}
				c, err := Connect(n, dl, 6*time.Second, func(zk.Event) {})
				if err != nil {
					return err
				}
				defer func() { dl.stop(); go c.Close() }()
				p, err := c.Create(LockPath+"/e-", nil, zk.FlagEphemeral|zk.FlagSequence, zk.WorldACL(zk.PermAll))
				if !assert.NoError(t, err) {
					return nil
				}
				before = c.SessionID()
				time.Sleep(8 * time.Second) // through the crash and the restart
				_, st, err := c.Get(p)
				if !assert.NoError(t, err) {
					return nil
				}
				after, owner = c.SessionID(), st.EphemeralOwner
				return nil
			}}}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	assert.Equal(t, before, after, "the same session after the restart")
	assert.Equal(t, before, owner, "its ephemeral node survived")
}

func TestLockAgainstTheServer(t *testing.T) {
	s := Setup{Holders: holders(2, time.Second), Token: CzxidToken, Duration: 60 * time.Second}
	res := gohost.Run(t, s.Config(), 1)
	require.NoError(t, res.Err())
	h := res.History
	require.GreaterOrEqual(t, len(h.Beliefs), 3, "h1, h2, h1 again")
	for i, b := range h.Beliefs[:2] {
		assert.Equal(t, history.EndRelease, b.Reason, "Lock, hold, Unlock: %+v", b)
		if i > 0 {
			assert.Greater(t, b.Token, h.Beliefs[i-1].Token, "czxid tokens grow")
			assert.Greater(t, b.Start, h.Beliefs[i-1].End, "the next holder locks after the unlock")
		}
	}
	for _, r := range checker.Check(h, checker.Options{}) {
		assert.NotEqual(t, checker.Violated, r.Status, "%s: %s", r.Property, r.Summary)
	}
}

// mustSchedule is a crash of ZooKeeper at crash and its restart at restart.
func mustSchedule(t *testing.T, crash, restart time.Duration) faults.Schedule {
	t.Helper()
	return faults.Schedule{Version: faults.Version, HealAt: restart + time.Second, Events: []faults.Event{
		{At: crash, Kind: faults.KindCrash, Node: ZooKeeperNode}, {At: restart, Kind: faults.KindRestart, Node: ZooKeeperNode}}}
}
