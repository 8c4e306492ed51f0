// Package zookeeper runs github.com/go-zookeeper/zk (v1.0.4), unchanged:
// its session client and its lock recipe, zk.Lock, inside leasesim's
// goroutine host (package gohost), against a simulated ZooKeeper that
// speaks ZooKeeper's client protocol over the host's simulated network.
// ZooKeeper is a Java server nobody can embed in a Go test; the server
// here is written from ZooKeeper's documentation and server code (named
// rule by rule below), and no go-zookeeper code is copied: the module has
// its own jute reader and writer.
//
// # The simulated ZooKeeper (server.go, requests.go, tree.go, protocol.go, jute.go)
//
// A standalone server (no quorum) that processes one request at a time
// across all connections, as ZooKeeper's request pipeline does:
//
//   - Wire format: jute (zookeeper.jute; org.apache.jute.BinaryOutputArchive):
//     big-endian ints and longs, one-byte booleans, length-prefixed strings,
//     buffers (−1 for null) and vectors, each packet behind a 4-byte length
//     (ClientCnxnSocketNIO, NIOServerCnxn). Request header (xid, type);
//     reply header (xid, zxid, err); a notification has xid −1, a ping xid −2.
//     A packet above jute.maxbuffer (0xfffff) or one that does not decode
//     closes the connection.
//   - Sessions (Programmer's Guide, "ZooKeeper Sessions";
//     ZooKeeperServer.processConnectRequest; SessionTrackerImpl): the
//     timeout a client asks for is negotiated into [2, 20] ticks
//     (minSessionTimeout, maxSessionTimeout defaults; tickTime 2 s); a
//     new session gets an id (server id 1 in the top byte, a durable
//     counter below) and a 16-byte password derived from it; a client
//     reconnecting with a session id and the right password moves the
//     session to its new connection (the old one is closed); an unknown or
//     expired session, or a wrong password, gets the expired answer
//     (session id 0) and a close; a client that has seen a later zxid
//     than the server is refused. Every packet, pings included, touches
//     the session: it expires at the first tick boundary at least its
//     timeout after the last packet (touchSession rounds the expiry up to
//     the next expiration interval), counted in ticks of the server's own
//     monotonic clock (gohost.Node.Clock: the schedule's drift applies).
//     Expiry and close are the closeSession transaction: the session's
//     ephemeral nodes are deleted, their watchers told, and (expiry) its
//     connection closed, so the client learns of it only when it
//     reconnects and gets the expired answer.
//   - The tree (Programmer's Guide, "ZooKeeper Data Model": ephemeral and
//     sequence nodes; DataTree): create with the ephemeral and sequential
//     flags (the parent must exist and not be ephemeral; a sequential name
//     gets the parent's cversion as ten digits; the ACL must not be empty
//     and is accepted, not enforced: every client is world:anyone;
//     container and TTL modes are refused as unimplemented), delete and
//     setData with a version (−1: any), exists, getData, getChildren and
//     getChildren2 (children sorted, where ZooKeeper gives them in no
//     order). Every change is a transaction with the next zxid (czxid,
//     mzxid, pzxid, the parent's cversion).
//   - Watches (Programmer's Guide, "ZooKeeper Watches"; WatchManager):
//     one-shot, per connection: exists and getData set data watches
//     (exists also on a missing node, which fires on its creation),
//     getChildren child watches; create fires NodeCreated and the parent's
//     NodeChildrenChanged, delete NodeDeleted (once to a connection with
//     both kinds) and the parent's NodeChildrenChanged, setData
//     NodeDataChanged. A closed connection loses its watches; a
//     reconnecting client's setWatches re-registers them, and fires at once
//     those whose event happened after the client's last zxid
//     (DataTree.setWatches).
//   - Durability: the tree, the zxid, the sessions and their timeouts are
//     in the node's Storage after every transaction (ZooKeeper's log,
//     synced before the reply), so a crash and restart keeps them; a
//     restarted server gives every stored session a full timeout from its
//     start, as the session tracker does when it loads a snapshot.
//
// # Holders (holder.go, client.go)
//
// Each holder runs one go-zookeeper session (zk.Connect with a static host
// provider that rotates as go-zookeeper's DNSHostProvider does, without a
// name lookup; zk.WithDialer over gohost.Node.Dial; zk's logger silenced)
// and zk.Lock on /lock in a loop: Lock, believe, write to the shared fenced
// store every 500 ms, Unlock after Hold, idle, again. go-zookeeper derives
// its timeouts from the negotiated session timeout: a reply (or a ping's)
// is awaited recvTimeout = 2/3 of it, and it pings every half of that
// (zk.Conn.setTimeouts); these are the lease facts the checkers read
// (history.Lease: TTL the session timeout, HoldPPB the tick the server may
// add, RequestTimeout recvTimeout, RenewInterval the ping interval).
//
// Beliefs (P1): from Lock's return until Unlock, or until the client's
// event callback reports the session state the configuration names
// (LostOn): StateExpired (until-expired, the only state that says the
// lock node is gone) or StateDisconnected (until-disconnected, as
// Curator's recipes advise), or until a write is fenced. Node.Act marks
// each write, so a holder that writes on a stale check believes until the
// write. Tokens (Token): none (token 0, a store that accepts everything),
// the lock node's sequence number, or its czxid (the zxid of the
// transaction that created it), each with the fenced store. zk.Lock keeps
// its node's path to itself; the holder finds its node as Lock did (the
// lowest sequence among the children) and checks with Exists that it is an
// ephemeral of its own session.
//
// # Properties
//
// P1 fails when a holder that believes until StateExpired is cut off past
// its session (samuel/go-zookeeper#20: the client learns of the expiry only
// when it reconnects) and under Kleppmann's pause; it holds for holders
// that stop believing at StateDisconnected, since recvTimeout (2/3 of the
// session) passes before the server can expire the session. P2 fails
// without a token and holds with the sequence number or the czxid. P3
// judges the fenced store's writes and the server's own requests: the
// server records every request it processes (ops.go: connect, ping,
// create, delete, exists, getChildren, close, any other as a renewal),
// its initial nodes and each restart with the sessions it reopened, as
// operations of the zookeeper-session specification
// (model.ZooKeeperSessionSpec), whose invalidation bound is the tick that
// HoldPPB declares: an ephemeral node seen after its session must have
// expired, or missing before the session's timeout ran out, is a
// violation. The operations are recorded at the server as it processes
// them (call, processing and return at one instant): P3 judges the
// server's processing order; what reached the clients is the beliefs'
// business. P4 fails when a
// create the server performed but whose caller never learned it (a lost
// reply, a connection dropped during a server stall) leaves an orphan lock
// node on a live session: it has the lowest sequence number and nobody
// will delete it, so every contender waits forever
// (samuel/go-zookeeper#229, fixed by the unmerged PR #237 there). Holders
// configured to clean up as that PR does (CleanOrphans: after a failed
// Lock, delete the lock nodes their own session owns) get the lock held
// again.
//
// # In simrun
//
// leasesim.json declares --impl zookeeper, run by TestLeasesimWorker:
//
//	bin/simrun list --impl zookeeper
//	bin/simrun run --impl zookeeper --scenario zookeeper-orphan-node/czxid --seed 1
//
// # Determinism
//
// go-zookeeper names protected lock nodes with crypto/rand (the runs set
// gohost.Config.SeedCryptoRand, so the tests are not parallel) and
// shuffles its server list with math/rand, which draws nothing for a list
// of one. Two of its races are settled: the holder's event callback sleeps
// a nanosecond at StateConnecting, so a request queued by a caller woken by
// a connection failure always precedes the reconnect loop's failing of
// unsent requests (the race behind #229; a real client may take either
// order); and a holder stops three seconds before the end of the run as an
// exiting process (its connections cut, zk.Conn.Close in the background),
// since Close waits up to a second, and not the same second in every run,
// for a close reply that may never come. A holder crashed by a schedule may
// therefore be reported with leaked goroutines; no story here crashes one.
package zookeeper
