// Package leasewire is leasesim's own lease protocol (lease.Message) as a
// producer and a reader of the protocol-neutral history of package
// history.
//
// Payload and Message map one lease.Message to and from the schema's
// Payload, and NewOperation makes a request and its reply one operation
// (the request id splits into the incarnation and the id); the event
// host's recorder and lease/realtime record through them. Lease gives the
// header's lease configuration for a lease.Config. WriteHistory writes an
// in-memory history as a history file (JSON lines); ReadHistory reads one
// back into exactly what the checkers read, so `simrun check FILE` judges
// a recorded history with the same checkers, report and exit codes as
// `simrun run`. The history is already the schema's records, so both pass
// them through; what this package adds is leasesim's protocol: the write
// and checkpoint records follow from the operations (Derived), and the
// reader refuses what leasesim's checkers cannot read as leasesim's
// protocol (a kind or error code outside it, an operation without its
// reply, a spec and hold_ppb that disagree, more than one grantor).
//
// What the schema does not carry: a message's SentAt (the client's clock
// reading, which no checker reads), a reply's echoed Client and ReqID
// (rebuilt from the request), a request's Holder, and the lease
// configuration's BackoffMin, CheckpointInterval and CheckpointEveryUnits.
//
// The lease store's specification is named in the header: SpecLeaseStore
// (leasesim's expiry policy, the grantor holds for TTL×(1+rho): hold_ppb
// is rho_ppb) or SpecLeaseStoreHolderBudgets, "lease-store/holder-budgets"
// (the grantor expires at exactly the TTL, the holder budgets 2×rho:
// lease.SplitHolderBudgets; hold_ppb is 0).
package leasewire
