package lease

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Every field of a message changes its digest, and equal messages have equal
// digests.
func TestMessageDigestCoversEveryField(t *testing.T) {
	base := Message{Kind: KindAcquireReply, ReqID: 7, Client: "h1", Resource: "r", Token: 3, TTL: time.Second,
		SentAt: 5, GrantorTime: 9, Err: CodeOK, State: []byte("s"), CheckpointToken: 2,
		Keys: []KV{{Key: "k", Value: []byte("v")}}, Key: "key", Value: []byte("val"), Holder: "h2",
		Remaining: 4, Prefix: "p"}
	same := base
	assert.Equal(t, base.Digest(), same.Digest())
	mutations := map[string]func(m *Message){
		"Kind": func(m *Message) { m.Kind = KindRenewReply }, "ReqID": func(m *Message) { m.ReqID++ },
		"Client": func(m *Message) { m.Client = "h9" }, "Resource": func(m *Message) { m.Resource = "q" },
		"Token": func(m *Message) { m.Token++ }, "TTL": func(m *Message) { m.TTL++ },
		"SentAt": func(m *Message) { m.SentAt++ }, "GrantorTime": func(m *Message) { m.GrantorTime++ },
		"Err": func(m *Message) { m.Err = CodeFenced }, "State": func(m *Message) { m.State = []byte("t") },
		"CheckpointToken": func(m *Message) { m.CheckpointToken++ },
		"Keys":            func(m *Message) { m.Keys = []KV{{Key: "k", Value: []byte("w")}} },
		"Key":             func(m *Message) { m.Key = "kex" }, "Value": func(m *Message) { m.Value = nil },
		"Holder": func(m *Message) { m.Holder = "" }, "Remaining": func(m *Message) { m.Remaining++ },
		"Prefix": func(m *Message) { m.Prefix = "pp" },
	}
	for name, mutate := range mutations {
		m := base
		mutate(&m)
		assert.NotEqual(t, base.Digest(), m.Digest(), "changing %s must change the digest", name)
	}
	// Field boundaries count: moving a byte from one string to the next differs.
	a, b := Message{Key: "ab", Prefix: "c"}, Message{Key: "a", Prefix: "bc"}
	assert.NotEqual(t, a.Digest(), b.Digest())
}

// Values swapped between fields, bytes moved between strings, and strings
// of every length up to a few words all change the digest: no two of these
// messages digest alike.
func TestMessageDigestSeparatesFields(t *testing.T) {
	msgs := []Message{
		{}, {Token: 1, TTL: 2}, {Token: 2, TTL: 1}, {SentAt: 1}, {GrantorTime: 1}, {Remaining: 1},
		{CheckpointToken: 1}, {ReqID: 1}, {Kind: 1}, {Err: 1},
		{Client: "h1"}, {Resource: "h1"}, {Holder: "h1"}, {Key: "h1"}, {Prefix: "h1"},
		{State: []byte("h1")}, {Value: []byte("h1")},
		{Keys: []KV{{Key: "h1"}}}, {Keys: []KV{{Value: []byte("h1")}}}, {Keys: []KV{{}}}, {Keys: []KV{{}, {}}},
		{Keys: []KV{{Key: "a", Value: []byte("b")}, {Key: "c"}}}, {Keys: []KV{{Key: "a"}, {Key: "b", Value: []byte("c")}}},
	}
	for n := 1; n <= 25; n++ {
		msgs = append(msgs, Message{Key: strings.Repeat("x", n)}, Message{Key: strings.Repeat("x", n) + "y"})
	}
	seen := map[uint64]int{}
	for i := range msgs {
		d := msgs[i].Digest()
		if j, ok := seen[d]; ok {
			t.Errorf("messages %d %+v and %d %+v digest alike", j, msgs[j], i, msgs[i])
		}
		seen[d] = i
	}
}

// Digesting a message allocates nothing.
func TestMessageDigestAllocatesNothing(t *testing.T) {
	m := Message{Kind: KindAcquireReply, ReqID: 7, Client: "holder-with-a-long-name", Resource: "r", Token: 3,
		Keys: []KV{{Key: "k", Value: []byte("v")}}, Value: []byte("a value of some length")}
	assert.Zero(t, testing.AllocsPerRun(100, func() { m.Digest() }))
}
