// Package model holds the sequential specifications that P3 checks the
// recorded history against, as porcupine models. They are pure functions of
// their arguments: nothing here runs, reads a clock or keeps state between
// calls.
//
//   - LeaseStore is the grantor as a lease store: acquire, renew, release,
//     revoke, checkpoint, read_checkpoint and query, in which expiry follows
//     the grantor's own clock readings carried in its replies
//     (lease.Message.GrantorTime).
//   - FencedRegister is the fenced resource: a write is accepted only under
//     a token at least as high as every token accepted before.
//
// Both are partitioned by resource: a history is linearizable if and only if
// the operations on each resource are. An operation's input is the request
// (a lease.Message with Client set) and its output is the reply the server
// sent; either may also be given as a *lease.Message, which the models only
// read. Explain says which rule of the specification an operation breaks,
// for evidence.
package model
