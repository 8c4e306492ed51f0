// Package lease is a lease library built to be tested: a grantor (the lease
// store), holders (client sessions that acquire, renew and release leases), a
// fenced resource, checkpoints for handing work over between holders, and an
// observer for the lease lifecycle.
//
// # Model
//
// A grantor hands out a lease on a named resource to one holder at a time,
// for a time to live (TTL). Every grant carries a fencing token that strictly
// increases per resource, is persisted before any reply carries it, and is
// never reused, even across a grantor crash. The holder computes a local
// validity deadline from the time it SENT the request that succeeded:
//
//	deadline = sentAt + TTL×(1−rho) − margin
//
// while the grantor keeps the lease until receiptTime + TTL×(1+rho) on its own
// clock. As long as every clock drifts by at most rho, the holder stops
// believing before the grantor lets anyone else in. When that assumption
// breaks (a pause longer than the TTL, a clock out of bounds), fencing is the
// last line of defence: the resource accepts a write only if its token is at
// least the highest token it has seen.
//
// After a restart the grantor grants nothing until every lease it may have
// granted before has certainly expired (Config.RestartGrace), as in Chubby.
// Leases are volatile; the token counters, accepted checkpoints and a boot
// marker are durable.
//
// # Environment
//
// The core is a single-threaded, event-driven state machine. It reacts to
// Deliver calls and timer callbacks, and it reads time, sends messages, stores
// data and draws random numbers only through the interfaces in Env. It starts
// no goroutines and never blocks; completion is reported through callbacks.
// The same code therefore runs unchanged under a deterministic simulator and,
// through package lease/realtime, on a real clock and a TCP network. Package
// lease/leasetest provides a small deterministic environment for tests and
// examples.
//
// # Plugging in other implementations
//
// Grantor, Holder and Resource are interfaces, and Impl bundles their
// constructors. Correct returns the implementation in this package; a test
// harness can drive any other Impl (for example a deliberately broken one that
// wraps the correct one) through the same door.
package lease
