package lease

import (
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

// digestWord folds the zero bytes above a word's highest set byte in one
// multiplication; it equals eight plain FNV-1a rounds for every word.
func TestDigestWordIsFNV1a(t *testing.T) {
	plain := func(d, v uint64) uint64 {
		for range 8 {
			d = (d ^ (v & 0xff)) * digestPrime
			v >>= 8
		}
		return d
	}
	words := []uint64{0, 1, 0xff, 0x100, 0xffff, 1 << 32, 5 * uint64(time.Second), 1<<63 | 1, ^uint64(0)}
	for i := range 64 {
		words = append(words, 1<<i, 1<<i-1)
	}
	for _, v := range words {
		for _, d := range []uint64{0, digestSeed, 0x9e3779b97f4a7c15} {
			assert.Equal(t, plain(d, v), digestWord(d, v), "word %#x from %#x", v, d)
		}
	}
}
