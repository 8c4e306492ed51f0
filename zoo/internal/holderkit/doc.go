// Package holderkit is the harness-facing plumbing that the from-scratch,
// callback-style lease holders of the zoo (zoo/redislock, zoo/etcdraft,
// zoo/k8slease) share: request ids unique across a node's restarts,
// requests awaiting a reply under a timeout, writes to leasesim's fenced
// store, and the stamping of the events a holder reports.
//
// Each implementation's protocol (what it sends to its grantor, when it
// believes, how it renews) stays in its own package; this package knows
// only lease.Env and leasesim's own messages. Everything here runs on the
// simulated path: it reads only the node's clock, sets only its timers and
// iterates no map.
package holderkit
