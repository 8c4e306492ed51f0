package checker

import (
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/model"
)

// drawLeaseOp draws one lease-store operation on resource "r": a grant, a
// refusal, a renewal or a release, by one of two clients, at one of a few
// grantor readings (so that readings tie), over a short interval or one
// that never returned.
func drawLeaseOp(t *rapid.T, i int) porcupine.Operation {
	client := lease.Addr(rapid.SampledFrom([]string{"h1", "h2"}).Draw(t, "client"))
	token := rapid.Uint64Range(1, 3).Draw(t, "token")
	in := lease.Message{Client: client, Resource: "r", TTL: time.Second, Token: token}
	out := lease.Message{Client: client, Resource: "r", Token: token, TTL: time.Second,
		GrantorTime: time.Duration(rapid.IntRange(0, 2).Draw(t, "g")) * 300 * time.Millisecond}
	switch rapid.IntRange(0, 4).Draw(t, "kind") {
	case 0:
		in.Kind, in.Token = lease.KindAcquire, 0
	case 1:
		in.Kind, in.Token, out.Token, out.Err, out.Holder = lease.KindAcquire, 0, 0, lease.CodeHeld, "h1"
	case 2:
		in.Kind = lease.KindRenew
	case 3:
		in.Kind, out.Err = lease.KindRenew, lease.CodeLeaseExpired
	default:
		in.Kind = lease.KindRelease
	}
	out.Kind = in.Kind.Reply()
	call := int64(rapid.IntRange(0, 4).Draw(t, "call"))
	ret := call + int64(rapid.IntRange(0, 2).Draw(t, "length"))
	if rapid.IntRange(0, 5).Draw(t, "lost") == 0 {
		ret = 100 // the reply never returned: open to the end
	}
	return porcupine.Operation{ClientId: i % 2, Input: in, Output: out, Call: call, Return: ret, Metadata: i}
}

// Narrowing and tie-breaking by grantor time change no verdict: porcupine
// decides the same on the history as recorded and as ordered.
func TestOrderByGrantorTimeKeepsTheVerdict(t *testing.T) {
	m := model.LeaseStore(lease.Config{TTL: time.Second}.WithDefaults())
	var verdicts [2]int
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 7).Draw(t, "ops")
		ops := make([]porcupine.Operation, n)
		for i := range ops {
			ops[i] = drawLeaseOp(t, i)
		}
		ordered := slices.Clone(ops)
		orderByGrantorTime(ordered)
		want := porcupine.CheckOperations(m, ops)
		if got := porcupine.CheckOperations(m, ordered); got != want {
			t.Fatalf("verdict %v as recorded, %v as ordered: %v -> %v", want, got, spans(ops), spans(ordered))
		}
		for i := range ops {
			if ordered[i].Call > ordered[i].Return {
				t.Fatalf("op %d: call %d after return %d", i, ordered[i].Call, ordered[i].Return)
			}
		}
		if want {
			verdicts[0]++
		} else {
			verdicts[1]++
		}
	})
	if verdicts[0] == 0 || verdicts[1] == 0 {
		t.Errorf("drew only one kind of history: %d linearizable, %d not", verdicts[0], verdicts[1])
	}
}

// Operations at the same grantor reading may go in any order, even when
// one returned at the instant the other was called.
func TestOrderByGrantorTimeLeavesTiesFree(t *testing.T) {
	m := model.LeaseStore(lease.Config{TTL: time.Second}.WithDefaults())
	op := func(kind lease.Kind, client lease.Addr, token uint64, call, ret int64, g time.Duration) porcupine.Operation {
		in := lease.Message{Kind: kind, Client: client, Resource: "r", TTL: time.Second}
		out := lease.Message{Kind: kind.Reply(), Client: client, Resource: "r", Token: token, TTL: time.Second, GrantorTime: g}
		if kind != lease.KindAcquire {
			in.Token = token
		}
		return porcupine.Operation{Input: in, Output: out, Call: call, Return: ret}
	}
	ops := []porcupine.Operation{
		op(lease.KindAcquire, "h1", 1, 0, 1, 0),
		op(lease.KindAcquire, "h2", 2, 2, 3, time.Second/2), // granted once h1 released, at the same reading
		op(lease.KindRelease, "h1", 1, 3, 5, time.Second/2), // called the instant h2's grant returned
	}
	require.True(t, porcupine.CheckOperations(m, ops))
	orderByGrantorTime(ops)
	assert.True(t, porcupine.CheckOperations(m, ops), "ordered: %v", spans(ops))
}
