package history

import "time"

// Type is the "type" of a record on the wire. The names are stable once
// released.
type Type string

// The record types (and TypeLeader, leader.go, and TypeDeclaration,
// declaration.go). A history is a header,
// then events in any order, then an end record.
const (
	TypeHeader     Type = "header"     // Header, the first line
	TypeOperation  Type = "operation"  // Operation
	TypeBelief     Type = "belief"     // BeliefInterval
	TypeAction     Type = "action"     // Action
	TypeWrite      Type = "write"      // FencedWrite
	TypeCheckpoint Type = "checkpoint" // CheckpointAccepted
	TypeUnit       Type = "unit"       // UnitDone
	TypeEffect     Type = "effect"     // SideEffect
	TypeSighting   Type = "sighting"   // RegistrationSighted
	TypeFault      Type = "fault"      // FaultWindow
	TypeTask       Type = "task"       // TaskRecord
	TypePremise    Type = "premise"    // PremiseRecord
	TypeEnd        Type = "end"        // RunEnd, the last line
)

// Event is one record between the header and the end: an *Operation,
// *BeliefInterval, *Action, *FencedWrite, *CheckpointAccepted, *UnitDone,
// *SideEffect, *RegistrationSighted, *FaultWindow, *TaskRecord,
// *PremiseRecord, *LeaderTerm or *Declaration. The set is closed; switch on
// the concrete type.
type Event interface {
	// Type returns the record's "type" on the wire.
	Type() Type
	// check validates the event's values; the writer and the reader
	// apply the same rules.
	check() *fieldError
	// toWire returns the event's wire form.
	toWire() any
	// bounds returns the earliest and the latest true time the event
	// names.
	bounds() (earliest, latest Time)
}

// Operation is one client-visible operation on a lease store or a fenced
// store: a request a client sent and the reply the server produced. A
// request the server processed twice (the network duplicated it) is two
// operations; a request the server never processed is none.
type Operation struct {
	// The fields are in the order the checkers read them, so that telling
	// what an operation is (its server, client, processing time and
	// request kind) reads one cache line: a history holds millions.

	// Server is the node that processed it (one of the header's
	// LeaseServers or FencedServers).
	Server string
	// Client is the process that sent the request, and Incarnation which
	// life of it: a restarted process is a new actor.
	Client string
	// Processed is when the server processed the request, or Unknown.
	// Call is when the client sent it. Return is when the reply reached
	// the client, or Never: the operation may have taken effect, but the
	// client does not know.
	Processed Time
	// Input is the request, Output the reply (zero when not observed).
	Input        Payload
	Call, Return Time
	Incarnation  uint64
	// ID is the request's id, unique per client incarnation.
	ID     uint64
	Output Payload
	// Msg are kernel message ids that join this event to the trace (the
	// request and the reply); optional, as on every event that has it.
	Msg []uint64
}

// Returned reports whether the reply reached the client.
func (o *Operation) Returned() bool { return o.Return != Never }

// Payload is the input or the output of an operation: its kind and the
// fields that kind uses, a union of what the specifications read (see
// doc.go). A field left zero is absent on the wire; zero and absent mean
// the same.
type Payload struct {
	// Kind names the request or reply ("acquire", "renew_reply",
	// "set_nx_px", "cas", "write", …); the specification gives it meaning.
	// Required.
	Kind string
	// Err says why an operation failed ("held", "fenced", "expired", …);
	// OK that a conditional operation succeeded. (Kind, Err and OK come
	// first: they are what the checkers read of every operation.)
	Err string
	OK  bool
	// Resource is the leased resource the operation acts on (a lock name,
	// a lease); Key a key within a store (a fenced store's key, a
	// registration, a Redis key). The specification says which it reads.
	Resource string
	Key      string
	// Value is a value written or read, as text (a producer with binary
	// values encodes them itself; the checkers only compare them).
	Value string
	// Holder is the holder a request acts for, or the current holder a
	// reply names; HolderIncarnation is that holder's life.
	Holder            string
	HolderIncarnation uint64
	// Token is a fencing token (or a transition count used as one).
	Token uint64
	// TTL is a requested or granted time to live.
	TTL time.Duration
	// Lease is an etcd-style lease id.
	Lease uint64
	// Revision is an etcd-style store revision; Version an optimistic
	// concurrency version (a Kubernetes resourceVersion).
	Revision int64
	Version  string
	// Clock is the server's own clock reading when it processed the
	// request; Remaining is a remaining TTL on the server's clock.
	Clock, Remaining time.Duration
	// State is checkpoint state and StateToken the token it was accepted
	// under.
	State      string
	StateToken uint64
	// Prefix is a key prefix a list asks for; Keys the registrations a
	// list returns or a lease carries.
	Prefix string
	Keys   []KV
}

// Outcome names a reply's outcome: its Err, or "ok" when it has none.
func (p *Payload) Outcome() string {
	if p.Err == "" {
		return "ok"
	}
	return p.Err
}

// KV is a registration: a key attached to a lease, and its value.
type KV struct {
	Key, Value string
}

// BeliefInterval is an interval of true time in which a holder believed it
// held a resource under a token (P1).
type BeliefInterval struct {
	Holder      string
	Incarnation uint64
	Resource    string
	Token       uint64
	// Start is when the holder came to believe (it processed the grant);
	// End when the belief ended, and Reason why.
	Start, End Time
	Reason     EndReason
	// LocalDeadline is the deadline on the holder's own clock, where the
	// producer knows it (zero otherwise).
	LocalDeadline time.Duration
	// LastAct is the last action the holder took under the token, or
	// Unknown.
	LastAct Time
	// Inferred is set when the holder never reported this belief and the
	// producer inferred it from the holder's actions under the token.
	Inferred bool
}

// Action is a holder acting under a token: sending a write, a checkpoint
// or an effect while it believes it holds the lease (P1 evidence).
type Action struct {
	Holder      string
	Incarnation uint64
	Resource    string
	Token       uint64
	At          Time
	// What names the action ("write", "checkpoint", "effect", …).
	What string
	Msg  []uint64
}

// FencedWrite is a write the fenced store accepted or refused (P2).
type FencedWrite struct {
	// Store is the fenced store's node; Resource and Key what was written.
	Store, Resource, Key string
	// Writer and Incarnation are who wrote it, under Token.
	Writer      string
	Incarnation uint64
	Token       uint64
	// At is when the store decided.
	At Time
	// Accepted says whether the store accepted the write.
	Accepted bool
	Msg      []uint64
}

// CheckpointAccepted is a checkpoint the lease store accepted (P5).
type CheckpointAccepted struct {
	Resource    string
	Writer      string
	Incarnation uint64
	Token       uint64
	At          Time
	// State is the checkpoint state (see Progress for leasesim's form).
	State string
	Msg   []uint64
}

// UnitDone is one unit of work a worker executed on a task under a token
// (P6).
type UnitDone struct {
	Task        string
	Index       int
	Worker      string
	Incarnation uint64
	Token       uint64
	At          Time
}

// SideEffect is an unfenced external side effect (a webhook, an email),
// measured by P6 as duplicates.
type SideEffect struct {
	From        string
	Incarnation uint64
	Resource    string
	// ID names the effect; the same ID twice is a duplicate.
	ID  string
	At  Time
	Msg []uint64
}

// RegistrationSighted is a discovery reader seeing a registration (P4 in
// the service registry).
type RegistrationSighted struct {
	Reader string
	Key    string
	// Owner is the holder that registered the key.
	Owner string
	At    Time
}

// FaultWindow is an interval of true time during which a fault was in
// force; an instant fault has Start == End. Checkers cite the windows
// active when a property broke (as JSON too, hence the tags, which are the
// wire's names).
type FaultWindow struct {
	// Kind names the fault ("pause", "partition", …: FaultKinds).
	Kind string `json:"kind"`
	// Nodes are the nodes involved: the node the fault acted on, then a
	// peer where it has one (see Node and Peer); none for a fault of the
	// whole network.
	Nodes []string `json:"nodes,omitempty"`
	Start Time     `json:"start_ns"`
	End   Time     `json:"end_ns"`
	// Detail says more (a partition's groups, a link's latency).
	Detail string `json:"detail,omitempty"`
}

// TaskRecord is a checkpointed task of the workload (P4, P6).
type TaskRecord struct {
	ID string
	// Units is how many units of work the task has, each taking UnitTime.
	Units    int
	UnitTime time.Duration
	// Arrival is when the task arrived.
	Arrival Time
	// Done is when the task was first known complete, or Never: when the
	// store accepted a checkpoint that says so, or, if earlier, when a
	// worker was handed the task as done (a grant whose checkpoint said
	// so: the store had completed it by then, though no acceptance was
	// seen, as when a replicated store commits a request after the member
	// that took it crashed). It is never before the true completion.
	Done Time
	// DoneUnanswered is when a worker first asked the store to checkpoint
	// the task done and never learned the outcome (the request timed out,
	// or the worker crashed first), or Never. Such a request may complete
	// the task at any time after it, so a completion first known after
	// its due time may still have been in time (P4 says unknown).
	DoneUnanswered Time
}

// PremiseRecord is one thing a scenario's story needs to have happened
// for its verdicts to mean anything (the armed failpoint was hit, the
// partition cut a holder off while it held the lease), and whether it
// did. A premise that did not hold makes the run unknown, never ok.
type PremiseRecord struct {
	Name string
	Held bool
	// Detail is the evidence: when it happened, or why it did not.
	Detail string
}

// Type returns TypeOperation.
func (*Operation) Type() Type { return TypeOperation }

// Type returns TypeBelief.
func (*BeliefInterval) Type() Type { return TypeBelief }

// Type returns TypeAction.
func (*Action) Type() Type { return TypeAction }

// Type returns TypeWrite.
func (*FencedWrite) Type() Type { return TypeWrite }

// Type returns TypeCheckpoint.
func (*CheckpointAccepted) Type() Type { return TypeCheckpoint }

// Type returns TypeUnit.
func (*UnitDone) Type() Type { return TypeUnit }

// Type returns TypeEffect.
func (*SideEffect) Type() Type { return TypeEffect }

// Type returns TypeSighting.
func (*RegistrationSighted) Type() Type { return TypeSighting }

// Type returns TypeFault.
func (*FaultWindow) Type() Type { return TypeFault }

// Type returns TypeTask.
func (*TaskRecord) Type() Type { return TypeTask }

// Type returns TypePremise.
func (*PremiseRecord) Type() Type { return TypePremise }
