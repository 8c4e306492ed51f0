//go:debug randseednop=0

package hraft

// This file carries the go:debug line gohost.Config.SeedMathRand needs:
// hashicorp/raft draws its election and heartbeat jitter from the global
// math/rand source, which Go 1.24+ seeds only under GODEBUG randseednop=0.
