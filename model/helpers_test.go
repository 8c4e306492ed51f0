package model

import (
	"time"

	"github.com/leasesim/leasesim/history"
)

// testPolicy holds leases for ttl×1.01: a 5s grant at g holds until g+5.05s.
var testPolicy = HoldRho(0.01)

const ttl = 5 * time.Second

// sec returns s seconds as a grantor reading.
func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// step is one operation, as a history records it: the request (in
// in.Input) and the reply.
type step struct {
	in  history.Operation
	out history.Payload
}

func req(kind, client string, token uint64) history.Operation {
	return history.Operation{Client: client, Input: history.Payload{Kind: kind, Resource: "r", Holder: client, Token: token}}
}

func reply(in history.Operation, g float64, err string) history.Payload {
	return history.Payload{Kind: in.Input.Kind + replySuffix, Resource: in.Input.Resource, Clock: sec(g), OK: err == "",
		Err: err}
}

// grant: client acquires and is granted token at g, handed checkpoint
// (ckptTok, ckpt).
func grant(client string, g float64, token uint64, ckptTok uint64, ckpt string) step {
	in := req(string(OpAcquire), client, 0)
	in.Input.TTL = ttl
	out := reply(in, g, ok)
	out.Token, out.TTL, out.Holder = token, ttl, client
	out.StateToken, out.State = ckptTok, ckpt
	return step{in, out}
}

// incarnation sets the holder incarnation of a step's request.
func incarnation(s step, n uint64) step {
	s.in.Incarnation, s.in.ID = n, 1
	return s
}

// refused: client's acquire fails with err at g, naming holder.
func refused(client string, g float64, err, holder string) step {
	in := req(string(OpAcquire), client, 0)
	in.Input.TTL = ttl
	out := reply(in, g, err)
	out.Holder = holder
	return step{in, out}
}

// tokenOp is a renew or release of token by client at g.
func tokenOp(kind LeaseOp, client string, g float64, token uint64, err string) step {
	in := req(string(kind), client, token)
	out := reply(in, g, err)
	if err == ok {
		out.Token = token
	}
	return step{in, out}
}

func renewOp(client string, g float64, token uint64, err string) step {
	return tokenOp(OpRenew, client, g, token, err)
}

func releaseOp(client string, g float64, token uint64, err string) step {
	return tokenOp(OpRelease, client, g, token, err)
}

func revokeOp(g float64, holder string, token uint64, err string) step {
	in := req(string(OpRevoke), "operator", 0)
	out := reply(in, g, err)
	out.Holder, out.Token = holder, token
	return step{in, out}
}

// ckpt: client checkpoints state under token at g with request seq
// (incarnation in the high 32 bits, id in the low).
func ckpt(client string, g float64, token uint64, state string, seq uint64, err string) step {
	in := req(string(OpCheckpoint), client, token)
	in.Input.State, in.Incarnation, in.ID = state, seq>>32, seq&(1<<32-1)
	out := reply(in, g, err)
	out.Token, out.StateToken = token, token
	return step{in, out}
}

func readCkpt(client string, g float64, token uint64, state string) step {
	in := req(string(OpReadCheckpoint), client, 0)
	out := reply(in, g, ok)
	out.StateToken, out.State = token, state
	return step{in, out}
}

func queryOp(client string, g float64, holder string, token uint64, err string) step {
	in := req(string(OpQuery), client, 0)
	out := reply(in, g, err)
	out.Holder, out.Token = holder, token
	return step{in, out}
}

// write: client writes key=value under token; the store answers err,
// naming token tokOut.
func writeOp(client string, token uint64, key, value string, err string, tokOut uint64) step {
	in := req(string(OpWrite), client, token)
	in.Input.Key, in.Input.Value = key, value
	out := history.Payload{Kind: string(OpWrite) + replySuffix, Resource: "r", OK: err == ok, Err: err, Token: tokOut}
	return step{in, out}
}

func readOp(client, key string, token uint64, value string) step {
	in := req(string(OpRead), client, 0)
	in.Input.Key = key
	out := history.Payload{Kind: string(OpRead) + replySuffix, Resource: "r", Key: key, OK: true, Token: token, Value: value}
	return step{in, out}
}
