// Package wire is what the harness and its holder processes say to each
// other: the holder's reports (one JSON object a line on its stdout). The
// fenced store speaks gohost's wire format (gohost.StoreRequest,
// gohost.StoreReply).
//
// Times are true time: nanoseconds of CLOCK_MONOTONIC since the run's start,
// which the harness hands every holder (-start-mono). CLOCK_MONOTONIC is one
// clock for every process on the machine, so the holders' times and the
// harness's are on the same axis.
package wire

import (
	"time"

	"golang.org/x/sys/unix"
)

// Report kinds, in Report.Kind.
const (
	KindOp       = "op"       // Op: a lease or lock operation on etcd
	KindBelieve  = "believe"  // Belief opened: Holder, Resource, Token, Start, Deadline
	KindDeadline = "deadline" // the open belief's deadline moved: Deadline
	KindEnd      = "end"      // the open belief ended: End, Reason, LastAct
	KindAction   = "action"   // a write under the token was sent: At, Token
	KindPremise  = "premise"  // a premise of the story, held or not: Name, Held, Detail
	KindLog      = "log"      // free text for the holder's log
)

// Report is one line a holder writes on its stdout.
type Report struct {
	Kind string `json:"kind"`
	// Op is an operation (KindOp), in history.Operation's terms but with
	// plain fields: the harness turns it into one.
	Op *Op `json:"op,omitempty"`
	// Belief fields.
	Resource string `json:"resource,omitempty"`
	Token    uint64 `json:"token,omitempty"`
	Start    int64  `json:"start,omitempty"`
	End      int64  `json:"end,omitempty"`
	Deadline int64  `json:"deadline,omitempty"`
	Reason   string `json:"reason,omitempty"`
	LastAct  int64  `json:"last_act,omitempty"`
	At       int64  `json:"at,omitempty"`
	// Premise fields.
	Name   string `json:"name,omitempty"`
	Held   bool   `json:"held,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Op is an operation a holder made on etcd. Return is -1 when the reply
// never came (the operation may have taken effect).
type Op struct {
	ID     uint64  `json:"id"`
	Call   int64   `json:"call"`
	Return int64   `json:"return"`
	In     Payload `json:"in"`
	Out    Payload `json:"out"`
}

// Payload is an operation's request or reply: the history.Payload fields
// the holder fills in.
type Payload struct {
	Kind     string `json:"kind"`
	Err      string `json:"err,omitempty"`
	OK       bool   `json:"ok,omitempty"`
	Resource string `json:"resource,omitempty"`
	Key      string `json:"key,omitempty"`
	Value    string `json:"value,omitempty"`
	Token    uint64 `json:"token,omitempty"`
	TTL      int64  `json:"ttl,omitempty"` // nanoseconds
	Lease    uint64 `json:"lease,omitempty"`
	Revision int64  `json:"revision,omitempty"`
	Version  string `json:"version,omitempty"` // a key's mod revision
}

// Mono returns CLOCK_MONOTONIC in nanoseconds.
func Mono() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("wire: clock_gettime(CLOCK_MONOTONIC): " + err.Error())
	}
	return ts.Nano()
}

// Clock is the true time of a run: CLOCK_MONOTONIC since its start.
type Clock struct{ StartMono int64 }

// Now returns the true time since the run's start.
func (c Clock) Now() time.Duration { return time.Duration(Mono() - c.StartMono) }
