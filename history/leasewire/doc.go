// Package leasewire is the adapter between leasesim's own lease protocol
// (lease.Message, and the in-memory history.History the checkers read
// today) and the protocol-neutral history schema of package history
// (history.Header, history.Event, history.RunEnd).
//
// It converts both ways. WriteHistory writes a run's in-memory history as
// a history file (JSON lines); ReadHistory reads a history file back into
// exactly what the checkers read, so `simrun check FILE` judges a recorded
// history with the same checkers, report and exit codes as `simrun run`.
// Payload and Message map one lease.Message to and from the schema's
// Payload; lease/realtime uses them to record a real run.
//
// What the schema does not carry, and so a round trip drops: a message's
// SentAt (the client's clock reading, which no checker reads), a reply's
// echoed Client and ReqID (rebuilt from the request), a request's Holder,
// and the lease configuration's BackoffMin, CheckpointInterval and
// CheckpointEveryUnits. The legacy history has no incarnation on beliefs,
// units or effects: they are written as incarnation 0 and an incarnation
// read from a file is dropped (the checkers of today judge a holder by its
// name). Everything the checkers read survives, which the round-trip test
// over the whole catalogue holds it to.
//
// The lease store's specification is named in the header: SpecLeaseStore
// (leasesim's expiry policy, the grantor holds for TTL×(1+rho)) or
// SpecLeaseStoreHolderBudgets, "lease-store/holder-budgets" (the grantor
// expires at exactly the TTL, the holder budgets 2×rho:
// lease.SplitHolderBudgets).
package leasewire
