// Package leasetest is a small deterministic environment for running lease
// nodes in tests and examples, without the simulator: one manual clock shared
// by every node, a loopback network that queues messages until the test lets
// them through, and storage that loses unsynced writes on a crash.
//
// Nothing happens on its own. Settle delivers queued messages; Advance moves
// time forward, firing timers in order and settling after each. A run is
// therefore fully determined by the test's calls and the seeds it passes.
package leasetest
