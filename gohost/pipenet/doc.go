// Package pipenet is an in-memory network of net.Pipe connections, for the
// plain testing/synctest baseline of a goroutine-host benchmark: the same
// node code run without leasesim (no latency, no faults, no trace, no
// history), to set leasesim's cost against.
package pipenet
