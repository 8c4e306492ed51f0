package etcdraft

import (
	"strconv"
	"time"

	"go.etcd.io/raft/v3/raftpb"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// Op names a client request. The names are the lessor specification's
// operation names (model.LessorOp), so that a recorded request maps onto
// the specification as it is.
type Op string

// The requests a holder sends to a member.
const (
	OpGrant     Op = "grant"     // LeaseGrant(ttl): through the log; the id is the entry's index
	OpKeepAlive Op = "keepalive" // LeaseKeepAlive(id): at the leader, after a ReadIndex round
	OpRevoke    Op = "revoke"    // LeaseRevoke(id): through the log, deletes the keys attached
	OpCreate    Op = "create"    // Txn(If(CreateRevision(key)==0).Then(Put(key, value, lease))): through the log
	OpGet       Op = "get"       // Range(key): a linearizable read through ReadIndex
	// OpCheckpoint is a task checkpoint:
	// Txn(If(CreateRevision(guard)==token).Then(If(Value(key) < value).Then(
	// Put(key, value)))), through the log; the key is attached to no lease
	// (ErrFenced if the first comparison fails; OK false if the second
	// does: a newer checkpoint of the holder overtook it). Named as leasesim's lease store names a
	// checkpoint, so that the harness sees tasks complete.
	OpCheckpoint Op = "checkpoint"
)

// opCode numbers the requests for digests.
func (o Op) opCode() uint64 {
	switch o {
	case OpGrant:
		return 1
	case OpKeepAlive:
		return 2
	case OpRevoke:
		return 3
	case OpCreate:
		return 4
	case OpGet:
		return 5
	case OpCheckpoint:
		return 6
	}
	return 0
}

// ReplyErr is why a member refused a request; "" is success.
type ReplyErr string

// The members' errors.
const (
	ErrNone ReplyErr = ""
	// ErrLeaseNotFound: keepalive or revoke of a lease that does not
	// exist, or a create attached to one (the lessor's lease_not_found).
	ErrLeaseNotFound ReplyErr = "lease_not_found"
	// ErrFenced: a checkpoint's comparison failed (the resource's key is
	// gone or has another create revision); nothing changed.
	ErrFenced ReplyErr = "fenced"
	// ErrBadRequest: a malformed request; nothing changed.
	ErrBadRequest ReplyErr = "bad_request"
	// ErrNotLeader: the member is not the leader (Reply.Leader names the
	// one it knows, if any), or lost leadership before answering; the
	// request may still take effect if it was proposed. The client
	// retries at the leader.
	ErrNotLeader ReplyErr = "not_leader"
)

// Request is a holder's request to a member. It is sent by value and never
// changed after sending.
type Request struct {
	Op     Op
	Client string // the holder's address
	// ID is the holder's request id: its boot count in the high 32 bits
	// and a counter in the low 32, so ids never repeat across restarts.
	ID    uint64
	Key   string
	Value string
	Lease int64         // keepalive, revoke: the lease; create: the lease to attach
	TTL   time.Duration // grant
	// Guard and Token are a fenced put's condition: the guard key's create
	// revision must be Token.
	Guard string
	Token int64
}

// Reply is a member's answer to a Request, echoing its Op, Client and ID.
type Reply struct {
	Op     Op
	Client string
	ID     uint64
	Err    ReplyErr
	Leader string // ErrNotLeader: the leader the member knows, "" if none
	// OK: create or checkpoint put the key; get found it.
	OK    bool
	Lease int64         // grant: the new lease's id
	TTL   time.Duration // grant, keepalive: the lease's TTL
	// Revision is the store's revision after the request; CreateRevision,
	// ModRevision, KeyLease and Value describe the key (get, and create
	// whether or not it put).
	Revision, CreateRevision, ModRevision, KeyLease int64
	Value                                           string
	// ServerTime is the answering member's monotonic reading when it
	// answered.
	ServerTime time.Duration
}

// Describe returns the request as its operation's call, in the lessor
// specification's terms.
func (r Request) Describe() history.Part {
	return history.Part{Client: r.Client, ID: r.ID, Payload: history.Payload{
		Kind: string(r.Op), Key: r.Key, Value: r.Value, Lease: uint64(r.Lease), TTL: r.TTL,
		Resource: r.Guard, Token: uint64(r.Token), State: r.state(),
	}}
}

// state is a checkpoint's task state, as leasesim's checkpoint records it
// (Payload.State); "" for any other request.
func (r Request) state() string {
	if r.Op != OpCheckpoint {
		return ""
	}
	_, s, err := decodeCheckpoint(r.Value)
	if err != nil {
		return ""
	}
	return string(s)
}

// Describe returns the reply as its operation's output. Lease is the new
// lease (grant) or the key's lease (get, create); Revision the store's
// revision; Token the key's create revision and Version its mod revision
// in decimal; Clock the member's reading. The leader hint is not part of
// the operation.
func (r Reply) Describe() history.Part {
	lease := r.Lease
	if r.Op == OpGet || r.Op == OpCreate {
		lease = r.KeyLease
	}
	p := history.Payload{Kind: string(r.Op) + "_reply", Err: string(r.Err), OK: r.OK, Lease: uint64(lease),
		TTL: r.TTL, Revision: r.Revision, Token: uint64(r.CreateRevision), Value: r.Value, Clock: r.ServerTime}
	if r.ModRevision != 0 {
		p.Version = strconv.FormatInt(r.ModRevision, 10)
	}
	return history.Part{Client: r.Client, ID: r.ID, Reply: true, Payload: p}
}

// Digest covers every field of the request (sim.Digester).
func (r Request) Digest() uint64 {
	return sim.Digest(r.Op.opCode(), sim.DigestString(r.Client), r.ID, sim.DigestString(r.Key),
		sim.DigestString(r.Value), uint64(r.Lease), uint64(r.TTL), sim.DigestString(r.Guard), uint64(r.Token))
}

// Digest covers every field of the reply (sim.Digester).
func (r Reply) Digest() uint64 {
	return sim.Digest(r.Op.opCode()|1<<8, sim.DigestString(r.Client), r.ID, sim.DigestString(string(r.Err)),
		sim.DigestString(r.Leader), b2u(r.OK), uint64(r.Lease), uint64(r.TTL), uint64(r.Revision),
		uint64(r.CreateRevision), uint64(r.ModRevision), uint64(r.KeyLease), sim.DigestString(r.Value),
		uint64(r.ServerTime))
}

// raftMsg carries a raft message between members: a pointer into the
// sender's Ready, which raft never touches again, so that boxing it in an
// interface allocates nothing.
type raftMsg struct{ m *raftpb.Message }

// Digest covers the message's header and its entries' indexes, terms and
// sizes (sim.Digester).
func (r raftMsg) Digest() uint64 {
	m := r.m
	d := sim.Digest(uint64(m.Type), m.From, m.To, m.Term, m.LogTerm, m.Index, m.Commit, b2u(m.Reject),
		m.RejectHint, uint64(len(m.Entries)), sim.DigestBytes(m.Context))
	for i := range m.Entries {
		e := &m.Entries[i]
		d = sim.Digest(d, e.Index, e.Term, uint64(e.Type), sim.DigestBytes(e.Data))
	}
	if m.Snapshot != nil {
		d = sim.Digest(d, m.Snapshot.Metadata.Index, m.Snapshot.Metadata.Term, sim.DigestBytes(m.Snapshot.Data))
	}
	return d
}

// b2u is 1 for true and 0 for false.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
