package lease

import "time"

// Observer receives lease lifecycle events. Observe is called on the node's
// event loop; it must return quickly and must not call back into the node.
type Observer interface {
	// Observe records one event.
	Observe(Event)
}

// EventKind is the type of an Event. It encodes to JSON as its name.
type EventKind uint8

// Event kinds. Holders emit Grant, Renew, RenewFailed, Jeopardy, Lost,
// Fenced, Checkpoint and Release; the grantor emits Expired and Revoked.
const (
	EventNone        EventKind = iota
	EventGrant                 // a holder began to hold a lease
	EventRenew                 // a renewal succeeded; Deadline is the new deadline
	EventRenewFailed           // a renewal attempt failed or timed out; Err says why
	EventJeopardy              // a renewal timed out while the lease is still valid (once per episode)
	EventLost                  // a holder stopped believing: deadline passed or renewal refused
	EventExpired               // the grantor expired a lease on its own clock
	EventRevoked               // an operator revoked a lease at the grantor
	EventFenced                // an action under Token was rejected as stale
	EventCheckpoint            // a checkpoint was accepted; Duration is its round trip
	EventRelease               // a holder released a lease
)

var eventKindNames = []string{
	"none", "grant", "renew", "renew_failed", "jeopardy", "lost", "expired",
	"revoked", "fenced", "checkpoint", "release",
}

// String returns the kind's snake_case name.
func (k EventKind) String() string { return enumName(k, eventKindNames, "EventKind") }

// MarshalText encodes the kind as its name.
func (k EventKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a kind from its name.
func (k *EventKind) UnmarshalText(text []byte) error {
	v, err := enumParse[EventKind](text, eventKindNames, "EventKind")
	*k = v
	return err
}

// Event is one lease lifecycle event. Node, Local and Wall are filled in by
// the node that emits it.
type Event struct {
	Kind     EventKind     `json:"kind"`
	Node     Addr          `json:"node"`                  // emitting node
	Resource string        `json:"resource"`              // leased resource
	Token    uint64        `json:"token,omitempty"`       // fencing token concerned
	Local    time.Duration `json:"local_ns"`              // node's monotonic reading
	Wall     time.Time     `json:"wall"`                  // node's wall clock
	Deadline time.Duration `json:"deadline_ns,omitempty"` // holder's deadline (monotonic)
	Duration time.Duration `json:"duration_ns,omitempty"` // e.g. a checkpoint's round trip
	Err      string        `json:"err,omitempty"`         // error text, if any
}
