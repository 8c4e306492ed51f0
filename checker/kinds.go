package checker

import (
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// The payload kinds the checkers read: the operations of leasesim's lease
// store and of the fenced register, as their specifications name them
// (package model), and leasesim's registry listing. A reply's kind is its
// request's with "_reply" after it; a successful reply has no Err.
const (
	kindAcquire    = string(model.OpAcquire)
	kindRenew      = string(model.OpRenew)
	kindRelease    = string(model.OpRelease)
	kindRevoke     = string(model.OpRevoke)
	kindCheckpoint = string(model.OpCheckpoint)
	kindWrite      = string(model.OpWrite)
	kindRead       = string(model.OpRead)
	// kindList lists the live leases' attached keys under a prefix; it
	// spans resources, so no specification models it.
	kindList = "list"
)

// The errors the checkers tell apart, as replies name them.
const (
	errHeld   = string(model.LeaseHeld)
	errGrace  = string(model.LeaseGrace)
	errFenced = string(model.RegisterFenced)
)

// requestID is leasesim's request id of an operation: its incarnation in
// the high 32 bits above its id, which orders a holder's requests across
// restarts (the checkers compare it as the grantor does).
func requestID(op *history.Operation) uint64 { return op.Incarnation<<32 | op.ID }
