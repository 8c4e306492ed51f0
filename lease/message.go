package lease

import "time"

// Kind is the type of a Message. It encodes to JSON as its name.
type Kind uint8

// Requests and their replies. A reply's Kind is its request's Kind plus one;
// see Kind.Reply.
const (
	KindNone Kind = iota

	KindAcquire             // holder → grantor: acquire (or re-acquire) a lease
	KindAcquireReply        // grant, or why not
	KindRenew               // holder → grantor: extend the lease with Token
	KindRenewReply          // new expiry, or why not
	KindRelease             // holder → grantor: give the lease up
	KindReleaseReply        // done, or why not
	KindRevoke              // operator → grantor: take the lease away now
	KindRevokeReply         // what was revoked
	KindCheckpoint          // holder → grantor: store State under Token
	KindCheckpointReply     // accepted, or ErrFenced
	KindReadCheckpoint      // anyone → grantor: latest accepted checkpoint
	KindReadCheckpointReply // State and CheckpointToken
	KindQuery               // anyone → grantor: holder, token and remaining TTL
	KindQueryReply          // Holder, Token, TTL, Remaining
	KindList                // anyone → grantor: keys of live leases by Prefix
	KindListReply           // Keys, sorted
	KindWrite               // holder → resource: write Key=Value under Token
	KindWriteReply          // accepted, or ErrFenced
	KindRead                // anyone → resource: read Key
	KindReadReply           // Value and the Token that wrote it
	KindEffect              // holder → resource: an unfenced side effect named Key
	KindEffectReply         // always accepted
)

var kindNames = []string{
	"none",
	"acquire", "acquire_reply", "renew", "renew_reply", "release", "release_reply",
	"revoke", "revoke_reply", "checkpoint", "checkpoint_reply",
	"read_checkpoint", "read_checkpoint_reply", "query", "query_reply",
	"list", "list_reply", "write", "write_reply", "read", "read_reply",
	"effect", "effect_reply",
}

// String returns the kind's snake_case name.
func (k Kind) String() string { return enumName(k, kindNames, "Kind") }

// MarshalText encodes the kind as its name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a kind from its name.
func (k *Kind) UnmarshalText(text []byte) error {
	v, err := enumParse[Kind](text, kindNames, "Kind")
	*k = v
	return err
}

// IsRequest reports whether k is a request kind.
func (k Kind) IsRequest() bool { return k > KindNone && int(k) < len(kindNames) && k%2 == 1 }

// Reply returns the reply kind of request kind k, or KindNone if k is not a
// request.
func (k Kind) Reply() Kind {
	if !k.IsRequest() {
		return KindNone
	}
	return k + 1
}

// Incarnation returns the incarnation a request id carries: its high 32
// bits. A holder keeps a durable counter of its boots and puts it there, so
// its request ids keep increasing across restarts, and the grantor can tell
// a restarted holder from the incarnation that went down.
func Incarnation(reqID uint64) uint64 { return reqID >> 32 }

// requestID composes a request id from an incarnation and a sequence number.
func requestID(incarnation uint64, seq uint32) uint64 { return incarnation<<32 | uint64(seq) }

// KV is a key-value pair: a registration attached to a lease, which vanishes
// with the lease.
type KV struct {
	Key   string `json:"key"`
	Value []byte `json:"value,omitempty"`
}

// Message is the one message type of the protocol. Which fields are used
// depends on Kind. Messages are passed by value; a receiver never mutates a
// message's slices. Durations are monotonic readings or lengths in
// nanoseconds.
type Message struct {
	Kind     Kind   `json:"kind"`
	ReqID    uint64 `json:"req_id,omitempty"`   // request id, echoed in the reply
	Client   Addr   `json:"client,omitempty"`   // the holder a request acts for
	Resource string `json:"resource,omitempty"` // the leased resource
	Token    uint64 `json:"token,omitempty"`    // fencing token

	TTL time.Duration `json:"ttl_ns,omitempty"` // requested or granted TTL
	// SentAt is the client's monotonic reading when it sent the request.
	// The grantor echoes it unchanged, and the holder computes its deadline
	// from the echoed value.
	SentAt time.Duration `json:"sent_at_ns,omitempty"`
	// GrantorTime is the grantor's monotonic reading when it processed the
	// request. Every grantor reply carries it.
	GrantorTime time.Duration `json:"grantor_time_ns,omitempty"`
	Err         ErrCode       `json:"err,omitempty"` // why a request failed

	State           []byte `json:"state,omitempty"`            // checkpoint state
	CheckpointToken uint64 `json:"checkpoint_token,omitempty"` // token State was accepted under
	Keys            []KV   `json:"keys,omitempty"`             // attached registrations, sorted

	Key   string `json:"key,omitempty"`   // resource key, or side-effect id
	Value []byte `json:"value,omitempty"` // resource value

	Holder    Addr          `json:"holder,omitempty"`       // current holder (ErrHeld, query)
	Remaining time.Duration `json:"remaining_ns,omitempty"` // remaining TTL on the grantor's clock
	Prefix    string        `json:"prefix,omitempty"`       // key prefix for List
}

// reply returns the skeleton of the reply to request m.
func (m Message) reply() Message {
	return Message{
		Kind:     m.Kind.Reply(),
		ReqID:    m.ReqID,
		Client:   m.Client,
		Resource: m.Resource,
		SentAt:   m.SentAt,
	}
}
