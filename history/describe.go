package history

// Described is a message of an implementation's own protocol that says
// which operation it is part of, so that a harness can record operations
// for the specification (P3) without knowing the protocol. A harness asks
// every message it carries; a request and its reply name the same client
// and id.
type Described interface {
	// Describe returns the message as its part of an operation.
	Describe() Part
}

// Part is a request or a reply of one operation, in the history's terms.
type Part struct {
	// Client is the process that sent the request (for a reply too), and
	// ID the id it gave the request, unique among all that client's
	// requests, across its restarts too (put a durable boot count in its
	// high bits): a reply is paired with its request by (client, id).
	Client string
	ID     uint64
	// Reply tells the server's reply from the client's request.
	Reply bool
	// Payload is what the message says, in the fields its specification
	// reads (see Payload and the specification's documentation).
	Payload Payload
}
