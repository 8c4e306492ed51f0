package model

import (
	"fmt"
	"strings"

	"github.com/leasesim/leasesim/lease"
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
func describeLeaseOp(in, out lease.Message) string {
	var args, result string
	switch in.Kind {
	case lease.KindAcquire:
		args = fmt.Sprintf("%s, ttl %v", in.Client, in.TTL)
		result = fmt.Sprintf("tok %d", out.Token)
		if out.CheckpointToken != 0 || len(out.State) > 0 {
			result += fmt.Sprintf(", ckpt tok %d %s", out.CheckpointToken, quote(string(out.State)))
		}
	case lease.KindRenew, lease.KindRelease:
		args = fmt.Sprintf("%s, tok %d", in.Client, in.Token)
		result = "ok"
	case lease.KindRevoke:
		args = string(in.Client)
		result = fmt.Sprintf("revoked %s tok %d", out.Holder, out.Token)
	case lease.KindCheckpoint:
		args = fmt.Sprintf("%s, tok %d, %s", in.Client, in.Token, quote(string(in.State)))
		result = "ok"
	case lease.KindReadCheckpoint:
		args = string(in.Client)
		result = fmt.Sprintf("tok %d %s", out.CheckpointToken, quote(string(out.State)))
	case lease.KindQuery:
		args = string(in.Client)
		result = fmt.Sprintf("%s tok %d", out.Holder, out.Token)
	default:
		args = string(in.Client)
	}
	if out.Err != lease.CodeOK {
		result = out.Err.String()
		if out.Holder != "" {
			result += " by " + string(out.Holder)
		}
	}
	return fmt.Sprintf("%v(%s) -> %s @g=%v", in.Kind, args, result, out.GrantorTime)
}

// describeRegisterOp describes a fenced-register operation, for example
// `write(h1, tok 7, "k"="v") -> ok`.
func describeRegisterOp(in, out lease.Message) string {
	switch {
	case in.Kind == lease.KindWrite && out.Err == lease.CodeOK:
		return fmt.Sprintf("write(%s, tok %d, %s=%s) -> ok", in.Client, in.Token, quote(in.Key), quote(string(in.Value)))
	case in.Kind == lease.KindWrite:
		return fmt.Sprintf("write(%s, tok %d, %s=%s) -> %v (highest tok %d)",
			in.Client, in.Token, quote(in.Key), quote(string(in.Value)), out.Err, out.Token)
	case in.Kind == lease.KindRead && out.Err == lease.CodeOK:
		return fmt.Sprintf("read(%s, %s) -> tok %d %s", in.Client, quote(in.Key), out.Token, quote(string(out.Value)))
	}
	return fmt.Sprintf("%v(%s, %s) -> %v", in.Kind, in.Client, quote(in.Key), out.Err)
}
