package model

import (
	"time"

	"github.com/leasesim/leasesim/lease"
)

// testConfig holds leases for ttl×1.01: a 5s grant at g holds until g+5.05s.
var testConfig = lease.Config{TTL: 5 * time.Second, Rho: 0.01}.WithDefaults()

const ttl = 5 * time.Second

// sec returns s seconds as a grantor reading.
func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// step is one operation: the request and the reply.
type step struct{ in, out lease.Message }

func req(kind lease.Kind, client string, token uint64) lease.Message {
	return lease.Message{Kind: kind, Client: lease.Addr(client), Resource: "r", Token: token}
}

func reply(in lease.Message, g float64, err lease.ErrCode) lease.Message {
	return lease.Message{Kind: in.Kind.Reply(), Client: in.Client, Resource: in.Resource, GrantorTime: sec(g), Err: err}
}

// grant: client acquires and is granted token at g, handed checkpoint
// (ckptTok, ckpt).
func grant(client string, g float64, token uint64, ckptTok uint64, ckpt string) step {
	in := req(lease.KindAcquire, client, 0)
	in.TTL = ttl
	out := reply(in, g, lease.CodeOK)
	out.Token, out.TTL, out.Holder = token, ttl, lease.Addr(client)
	out.CheckpointToken, out.State = ckptTok, []byte(ckpt)
	return step{in, out}
}

// incarnation sets the holder incarnation a step's request id carries.
func incarnation(s step, n uint64) step {
	s.in.ReqID = n<<32 | 1
	return s
}

// refused: client's acquire fails with err at g, naming holder.
func refused(client string, g float64, err lease.ErrCode, holder string) step {
	in := req(lease.KindAcquire, client, 0)
	in.TTL = ttl
	out := reply(in, g, err)
	out.Holder = lease.Addr(holder)
	return step{in, out}
}

// tokenOp is a renew or release of token by client at g.
func tokenOp(kind lease.Kind, client string, g float64, token uint64, err lease.ErrCode) step {
	in := req(kind, client, token)
	out := reply(in, g, err)
	if err == lease.CodeOK {
		out.Token = token
	}
	return step{in, out}
}

func renewOp(client string, g float64, token uint64, err lease.ErrCode) step {
	return tokenOp(lease.KindRenew, client, g, token, err)
}

func releaseOp(client string, g float64, token uint64, err lease.ErrCode) step {
	return tokenOp(lease.KindRelease, client, g, token, err)
}

func revokeOp(g float64, holder string, token uint64, err lease.ErrCode) step {
	in := req(lease.KindRevoke, "operator", 0)
	out := reply(in, g, err)
	out.Holder, out.Token = lease.Addr(holder), token
	return step{in, out}
}

// ckpt: client checkpoints state under token at g with request id reqID.
func ckpt(client string, g float64, token uint64, state string, reqID uint64, err lease.ErrCode) step {
	in := req(lease.KindCheckpoint, client, token)
	in.State, in.ReqID = []byte(state), reqID
	out := reply(in, g, err)
	out.Token, out.CheckpointToken = token, token
	return step{in, out}
}

func readCkpt(client string, g float64, token uint64, state string) step {
	in := req(lease.KindReadCheckpoint, client, 0)
	out := reply(in, g, lease.CodeOK)
	out.CheckpointToken, out.State = token, []byte(state)
	return step{in, out}
}

func queryOp(client string, g float64, holder string, token uint64, err lease.ErrCode) step {
	in := req(lease.KindQuery, client, 0)
	out := reply(in, g, err)
	out.Holder, out.Token = lease.Addr(holder), token
	return step{in, out}
}

// write: client writes key=value under token; the store answers err,
// naming token tokOut.
func writeOp(client string, token uint64, key, value string, err lease.ErrCode, tokOut uint64) step {
	in := req(lease.KindWrite, client, token)
	in.Key, in.Value = key, []byte(value)
	out := lease.Message{Kind: lease.KindWriteReply, Client: in.Client, Resource: "r", Err: err, Token: tokOut}
	return step{in, out}
}

func readOp(client, key string, token uint64, value string) step {
	in := req(lease.KindRead, client, 0)
	in.Key = key
	out := lease.Message{Kind: lease.KindReadReply, Client: in.Client, Resource: "r", Key: key, Token: token, Value: []byte(value)}
	return step{in, out}
}
