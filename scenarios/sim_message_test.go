package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/lease"
)

// digest returns the digest the kernel takes of m when the wiring sends it.
func digest(m lease.Message) uint64 { return (&simMessage{m}).Digest() }

// Every field of a message changes its digest, and equal messages have equal
// digests.
func TestMessageDigestCoversEveryField(t *testing.T) {
	base := lease.Message{Kind: lease.KindAcquireReply, ReqID: 7, Client: "h1", Resource: "r", Token: 3, TTL: time.Second,
		SentAt: 5, GrantorTime: 9, Err: lease.CodeOK, State: []byte("s"), CheckpointToken: 2,
		Keys: []lease.KV{{Key: "k", Value: []byte("v")}}, Key: "key", Value: []byte("val"), Holder: "h2",
		Remaining: 4, Prefix: "p"}
	same := base
	assert.Equal(t, digest(base), digest(same))
	mutations := map[string]func(m *lease.Message){
		"Kind": func(m *lease.Message) { m.Kind = lease.KindRenewReply }, "ReqID": func(m *lease.Message) { m.ReqID++ },
		"Client": func(m *lease.Message) { m.Client = "h9" }, "Resource": func(m *lease.Message) { m.Resource = "q" },
		"Token": func(m *lease.Message) { m.Token++ }, "TTL": func(m *lease.Message) { m.TTL++ },
		"SentAt": func(m *lease.Message) { m.SentAt++ }, "GrantorTime": func(m *lease.Message) { m.GrantorTime++ },
		"Err": func(m *lease.Message) { m.Err = lease.CodeFenced }, "State": func(m *lease.Message) { m.State = []byte("t") },
		"CheckpointToken": func(m *lease.Message) { m.CheckpointToken++ },
		"Keys":            func(m *lease.Message) { m.Keys = []lease.KV{{Key: "k", Value: []byte("w")}} },
		"Key":             func(m *lease.Message) { m.Key = "kex" }, "Value": func(m *lease.Message) { m.Value = nil },
		"Holder": func(m *lease.Message) { m.Holder = "" }, "Remaining": func(m *lease.Message) { m.Remaining++ },
		"Prefix": func(m *lease.Message) { m.Prefix = "pp" },
	}
	for name, mutate := range mutations {
		m := base
		mutate(&m)
		assert.NotEqual(t, digest(base), digest(m), "changing %s must change the digest", name)
	}
	// Field boundaries count: moving a byte from one string to the next differs.
	a, b := lease.Message{Key: "ab", Prefix: "c"}, lease.Message{Key: "a", Prefix: "bc"}
	assert.NotEqual(t, digest(a), digest(b))
}

// Values swapped between fields, bytes moved between strings, and strings
// of every length up to a few words all change the digest: no two of these
// messages digest alike.
func TestMessageDigestSeparatesFields(t *testing.T) {
	msgs := []lease.Message{
		{}, {Token: 1, TTL: 2}, {Token: 2, TTL: 1}, {SentAt: 1}, {GrantorTime: 1}, {Remaining: 1},
		{CheckpointToken: 1}, {ReqID: 1}, {Kind: 1}, {Err: 1},
		{Client: "h1"}, {Resource: "h1"}, {Holder: "h1"}, {Key: "h1"}, {Prefix: "h1"},
		{State: []byte("h1")}, {Value: []byte("h1")},
		{Keys: []lease.KV{{Key: "h1"}}}, {Keys: []lease.KV{{Value: []byte("h1")}}}, {Keys: []lease.KV{{}}}, {Keys: []lease.KV{{}, {}}},
		{Keys: []lease.KV{{Key: "a", Value: []byte("b")}, {Key: "c"}}}, {Keys: []lease.KV{{Key: "a"}, {Key: "b", Value: []byte("c")}}},
	}
	for n := 1; n <= 25; n++ {
		msgs = append(msgs, lease.Message{Key: strings.Repeat("x", n)}, lease.Message{Key: strings.Repeat("x", n) + "y"})
	}
	seen := map[uint64]int{}
	for i := range msgs {
		d := digest(msgs[i])
		if j, ok := seen[d]; ok {
			t.Errorf("messages %d %+v and %d %+v digest alike", j, msgs[j], i, msgs[i])
		}
		seen[d] = i
	}
}

// Digesting a message allocates nothing.
func TestMessageDigestAllocatesNothing(t *testing.T) {
	m := lease.Message{Kind: lease.KindAcquireReply, ReqID: 7, Client: "holder-with-a-long-name", Resource: "r", Token: 3,
		Keys: []lease.KV{{Key: "k", Value: []byte("v")}}, Value: []byte("a value of some length")}
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = digest(m) }))
}
