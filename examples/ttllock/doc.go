// Package ttllock is a small lock service with a TTL and a fencing token,
// written as ordinary goroutine code (net.Conn, time, context), and the
// stories leasesim tells about it. It is the example of the goroutine
// host: leasesim judges it with the same scenario API, premises and
// checkers as its own lease protocol (package scenarios), and its
// Kleppmann story gives the same verdicts as the event host's
// (scenarios.KleppmannGCPause).
//
// The server grants the lock "lock" for a TTL and numbers grants (the
// token); a client acquires, believes until its deadline (measured from
// when it sent the request), renews every TTL/3, writes to the fenced
// store under its token every 250 ms, and releases after a while. Each
// write is an action under the token, recorded where the client decides
// on it (gohost.Node.Act), before the before-write failpoint.
//
// SessionTokenServer is the same server fencing with the holder's session
// id, as a lock built on an etcd lease id or a ZooKeeper session id does;
// its story (SessionAgeHandover) is a P2 violation, as the event host's
// zoo/redislock session-token mutant is.
package ttllock
