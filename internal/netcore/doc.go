// Package netcore is the simulated network's model, shared by its two
// users: the public package simnet (any testing/synctest test, on the
// bubble's timers) and the goroutine host gohost (its action queue, fault
// events and trace). It is internal so that the hooks a host plugs in
// ([Hooks]) and the operations only a harness needs (a life that crashes,
// a paused host) stay out of simnet's public surface.
//
// A connection is two pipes, one per direction. Every Write is one segment
// that travels its pipe in order (TCP-like: a segment is never delivered
// before an earlier one of its pipe), after a latency drawn from the
// pipe's own random stream, seeded from the network's seed and the
// connection's name. The hooks deliver one segment at a time.
//
// A cut link stalls its pipes: a segment that reaches a cut link (or a
// paused host) waits, with every later one of its pipe, until the heal (or
// the resume), and then travels again with a fresh latency. Nothing is
// lost and no connection is reset by a partition: as with TCP whose
// retransmissions outlast the cut, only the code's own deadlines and
// timeouts notice. A stalled connection (Life.Freeze) holds its own
// pipes the same way, both directions, until Net.Thaw, while new
// connections between the same hosts flow. A dead life's connections are reset: its peers receive
// a reset (in order behind the data already sent), and a segment that
// reaches a dead or closed endpoint is answered with a reset.
//
// Loss is the one thing a stream cannot do silently: a data segment lost
// on a lossy link (drawn per segment from the pipe's own random stream) or
// to a reply hook breaks its connection (breakConn): the receiver reads a
// reset after what it already received, the sender reads one once it
// travels back, and the connection's later segments are dropped.
//
// Every method that does not lock says "Callers hold mu": the network's
// one mutex ([Config.Mu]), which a host shares with its own state so that
// a fault and a delivery are one step.
package netcore
