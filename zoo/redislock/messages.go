package redislock

import (
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// Op names a server command. The names are the expiring-key
// specification's operation names (model.KeyOp), so that the harness's
// spec adapter can map a recorded command onto the specification as it is.
type Op string

// The commands the server runs, as a Redis lock uses them.
const (
	// OpSetNXPX is SET key value NX PX ttl: set the key if it is absent,
	// expiring ttl later on the server's clock.
	OpSetNXPX Op = "set_nx_px"
	// OpGet is GET key.
	OpGet Op = "get"
	// OpDelIfEqual is the unlock script: if GET key == value then DEL key,
	// in one step.
	OpDelIfEqual Op = "del_if_equal"
	// OpPExpireIfEqual is redsync's touch script: if GET key == value then
	// PEXPIRE key ttl, in one step.
	OpPExpireIfEqual Op = "pexpire_if_equal"
	// OpIncr is INCR key: the fencing-token counter.
	OpIncr Op = "incr"
)

// opCode numbers the commands for digests; 0 is not a command.
func (o Op) opCode() uint64 {
	switch o {
	case OpSetNXPX:
		return 1
	case OpGet:
		return 2
	case OpDelIfEqual:
		return 3
	case OpPExpireIfEqual:
		return 4
	case OpIncr:
		return 5
	}
	return 0
}

// ReplyErr is why the server refused a command; "" is success (which for a
// conditional command may still mean it did not act: see Reply.OK).
type ReplyErr string

// The server's errors, named as the expiring-key specification names them.
const (
	// ErrNone: the command ran.
	ErrNone ReplyErr = ""
	// ErrNotInteger: INCR of a value that is not a 64-bit integer, or that
	// would overflow (Redis: "value is not an integer or out of range").
	ErrNotInteger ReplyErr = "not_integer"
	// ErrBadRequest: a malformed command (an unknown op, an empty key, a
	// TTL that is not positive); nothing changed.
	ErrBadRequest ReplyErr = "bad_request"
)

// Command is a request from a holder to the server. It is sent by value
// and never changed after sending.
type Command struct {
	Op     Op
	Client string // the holder that sent it (its address)
	// ID is the holder's request id: its boot count in the high 32 bits
	// and a counter in the low 32, so ids never repeat across restarts.
	ID    uint64
	Key   string
	Value string        // set_nx_px: the value; *_if_equal: the value compared
	TTL   time.Duration // set_nx_px, pexpire_if_equal
}

// Reply is the server's answer to a Command, echoing its Op, Client and ID.
type Reply struct {
	Op     Op
	Client string
	ID     uint64
	// OK: set_nx_px set the key; del_if_equal and pexpire_if_equal acted;
	// get found the key.
	OK    bool
	Value string // get: the value found
	N     int64  // incr: the value after the increment
	// Clock is the server's monotonic reading when it ran the command.
	Clock time.Duration
	Err   ReplyErr
}

// Describe returns the command as the request of an operation, in the
// expiring-key specification's terms.
func (c Command) Describe() history.Part {
	return history.Part{Client: c.Client, ID: c.ID, Payload: history.Payload{
		Kind: string(c.Op), Key: c.Key, Value: c.Value, TTL: c.TTL,
	}}
}

// Describe returns the reply as the output of an operation, in the
// expiring-key specification's terms.
func (r Reply) Describe() history.Part {
	return history.Part{Client: r.Client, ID: r.ID, Reply: true, Payload: history.Payload{
		Kind: string(r.Op) + "_reply", OK: r.OK, Value: r.Value, Revision: r.N, Clock: r.Clock, Err: string(r.Err),
	}}
}

// Digest covers every field of the command (sim.Digester).
func (c Command) Digest() uint64 {
	return sim.Digest(c.Op.opCode(), sim.DigestString(c.Client), c.ID, sim.DigestString(c.Key),
		sim.DigestString(c.Value), uint64(c.TTL))
}

// Digest covers every field of the reply (sim.Digester).
func (r Reply) Digest() uint64 {
	return sim.Digest(r.Op.opCode()|1<<8, sim.DigestString(r.Client), r.ID, b2u(r.OK), sim.DigestString(r.Value),
		uint64(r.N), uint64(r.Clock), sim.DigestString(string(r.Err)))
}

// b2u is 1 for true and 0 for false.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
