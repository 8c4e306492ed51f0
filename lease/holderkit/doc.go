// Package holderkit is the harness-facing plumbing of a lease holder that
// keeps its own protocol (an implementation with its own messages and
// spec, plugged in through lease.Impl): request ids unique across a node's
// restarts, requests awaiting a reply under a timeout, writes to
// leasesim's fenced store in the holder's own terms (FencedStore: a key,
// a value and the token of the grant it believes in; no lease.Message in
// the holder's code), and the stamping of the events a holder reports.
// The zoo's from-scratch holders (zoo/redislock, zoo/etcdraft,
// zoo/k8slease) are built on it.
//
// Each implementation's protocol (what it sends to its grantor, when it
// believes, how it renews) stays in its own package; this package knows
// only lease.Env and leasesim's own messages. Everything here runs on the
// simulated path: it reads only the node's clock, sets only its timers and
// iterates no map.
package holderkit
