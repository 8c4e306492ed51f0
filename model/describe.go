package model

import (
	"fmt"
	"strings"
)

// quoteMaxBytes bounds how much of a state or value a description shows.
const quoteMaxBytes = 24

// quote returns s quoted, cut to quoteMaxBytes.
func quote(s string) string {
	if len(s) > quoteMaxBytes {
		return fmt.Sprintf("%q…", s[:quoteMaxBytes])
	}
	return fmt.Sprintf("%q", s)
}

// String describes the state for porcupine's visualisation, for example
// `held by h2 tok 7 until 17.35s; ckpt tok 6 "12"; g=12.3s`.
func (s leaseState) String() string {
	var b strings.Builder
	switch {
	case s.holder != "":
		fmt.Fprintf(&b, "held by %s tok %d until %v%s", s.holder, s.token, s.expiresAt, revokedNote(s.revoked))
	case s.maxToken != 0:
		fmt.Fprintf(&b, "free (last tok %d)", s.maxToken)
	default:
		b.WriteString("free")
	}
	if s.ckptToken != 0 || s.ckptState != "" {
		fmt.Fprintf(&b, "; ckpt tok %d %s", s.ckptToken, quote(s.ckptState))
	}
	fmt.Fprintf(&b, "; g=%v", s.lastG)
	return b.String()
}

// describeLeaseOp describes a lease-store operation, for example
// `acquire(h2, ttl 5s) -> tok 7 @g=12.3s`.
func describeLeaseOp(in LeaseInput, out LeaseOutput) string {
	var args, result string
	switch in.Op {
	case OpAcquire:
		args = fmt.Sprintf("%s, ttl %v", in.Client, in.TTL)
		result = fmt.Sprintf("tok %d", out.Token)
		if out.CheckpointToken != 0 || out.State != "" {
			result += fmt.Sprintf(", ckpt tok %d %s", out.CheckpointToken, quote(out.State))
		}
	case OpRenew, OpRelease:
		args = fmt.Sprintf("%s, tok %d", in.Client, in.Token)
		result = "ok"
	case OpRevoke:
		args = in.Client
		result = fmt.Sprintf("revoked %s tok %d", out.Holder, out.Token)
	case OpCheckpoint:
		args = fmt.Sprintf("%s, tok %d, %s", in.Client, in.Token, quote(in.State))
		result = "ok"
	case OpReadCheckpoint:
		args = in.Client
		result = fmt.Sprintf("tok %d %s", out.CheckpointToken, quote(out.State))
	case OpQuery:
		args = in.Client
		result = fmt.Sprintf("%s tok %d", out.Holder, out.Token)
	default:
		args = in.Client
	}
	if out.Err != LeaseOK {
		result = string(out.Err)
		if out.Holder != "" {
			result += " by " + out.Holder
		}
	}
	return fmt.Sprintf("%v(%s) -> %s @g=%v", in.Op, args, result, out.ServerTime)
}

// describeRegisterOp describes a fenced-register operation, for example
// `write(h1, tok 7, "k"="v") -> ok`.
func describeRegisterOp(in RegisterInput, out RegisterOutput) string {
	switch {
	case in.Op == OpWrite && out.Err == RegisterOK:
		return fmt.Sprintf("write(%s, tok %d, %s=%s) -> ok", in.Client, in.Token, quote(in.Key), quote(in.Value))
	case in.Op == OpWrite:
		return fmt.Sprintf("write(%s, tok %d, %s=%s) -> %v (highest tok %d)",
			in.Client, in.Token, quote(in.Key), quote(in.Value), out.Err, out.Token)
	case in.Op == OpRead && out.Err == RegisterOK:
		return fmt.Sprintf("read(%s, %s) -> tok %d %s", in.Client, quote(in.Key), out.Token, quote(out.Value))
	}
	return fmt.Sprintf("%v(%s, %s) -> %v", in.Op, in.Client, quote(in.Key), out.Err)
}
