// Package realtime runs the lease core of package lease on a real clock and
// a real network: TCP on any address, with length-prefixed JSON frames.
//
// It is a thin adapter, in the way etcd's raft node.go wraps its RawNode.
// Each node runs one loop goroutine; timers and incoming messages post
// closures to that loop, so the core sees the same single-threaded world it
// sees in the simulator. The network is lossy as far as the core is
// concerned: a message that cannot be sent is dropped.
//
// StartGrantor, StartResource and StartHolder start nodes. Holder adds a
// small blocking API for real users (AcquireWait, Write, Checkpoint) built on
// the core's callbacks. Callbacks a user passes in (AcquireOptions.OnGrant,
// OnLost, an Observer, a Failpoint) run on the node's loop goroutine and must
// not block it, except a Failpoint that means to pause the node.
//
// A Recorder passed in Options.Recorder to every node of a run records the
// run's history in the neutral schema of package history, true time taken
// from the host's monotonic clock, so that `simrun check FILE` judges a
// real run with the simulator's checkers.
package realtime
