package scenarios

import (
	"fmt"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
)

// A recorded message gives back the payload the message itself gives
// (leasewire.Payload), whatever its fields, however many messages share
// its strings and its table, and in any order they are read.
func TestMsgTablePayloadsAreTheMessages(t *testing.T) {
	msgs := []lease.Message{
		{Kind: lease.KindAcquire, ReqID: 1<<32 | 7, Client: "h1", Resource: "lock", TTL: 5 * time.Second, SentAt: 42},
		{Kind: lease.KindAcquireReply, ReqID: 1<<32 | 7, Resource: "lock", Token: 3, TTL: 5 * time.Second,
			GrantorTime: time.Hour, State: []byte("progress 4/20"), CheckpointToken: 2,
			Keys: []lease.KV{{Key: "svc/a", Value: []byte("h1")}, {Key: "svc/b"}}},
		{Kind: lease.KindAcquireReply, Err: lease.CodeHeld, Holder: "h2", Remaining: time.Second},
		{Kind: lease.KindWrite, Client: "h1", Resource: "lock", Key: "k", Value: []byte("h1-12"), Token: 3},
		{Kind: lease.KindWriteReply, Err: lease.CodeFenced, Token: 4},
		{Kind: lease.KindWriteReply},
		{Kind: lease.KindCheckpoint, Client: "w1", Resource: "task-1", Token: 9, State: []byte{0, 1, 2, 255}},
		{Kind: lease.KindList, Client: "r1", Prefix: "svc/"},
		{Kind: lease.KindListReply, Keys: []lease.KV{{Key: "svc/a", Value: []byte("s1")}}},
		{Kind: lease.KindRead, Client: "h1", Key: "k"},
		{Kind: lease.KindReadReply, Key: "k", Value: []byte("h1-12"), Token: 3},
		{Kind: lease.KindRenew, Client: "h2", Resource: "lock", Token: 3, Holder: "ignored in a request"},
		{Kind: lease.KindQueryReply, Holder: "h3", Token: math.MaxUint64, TTL: math.MaxInt64, Remaining: -time.Second,
			GrantorTime: math.MinInt64, CheckpointToken: 1 << 63},
	}
	var table msgTable
	ids := make([]int32, len(msgs))
	for i := range msgs {
		ids[i] = table.add(&msgs[i])
	}
	for i := 0; i < 2*chunkSize; i++ { // the messages again, past a chunk's end
		m := msgs[i%len(msgs)]
		m.Token = uint64(i)
		m.Value = fmt.Appendf(nil, "v%d", i)
		require.Equal(t, int32(len(msgs)+i), table.add(&m))
	}
	text := string(table.text)
	for i := len(msgs) - 1; i >= 0; i-- {
		var got history.Payload
		table.payloadInto(&got, ids[i], text)
		want := leasewire.Payload(msgs[i])
		assert.Equal(t, want, got, "message %d (%s)", i, msgs[i].Kind)
		kind, resource, err, ok := table.head(ids[i])
		assert.Equal(t, []any{want.Kind, want.Resource, want.Err, want.OK}, []any{kind, resource, err, ok},
			"message %d's head", i)
	}
	var last history.Payload
	table.payloadInto(&last, int32(len(msgs)+2*chunkSize-1), text)
	assert.Equal(t, fmt.Sprintf("v%d", 2*chunkSize-1), last.Value)
	assert.Equal(t, uint64(2*chunkSize-1), last.Token)
}

// Interning gives each distinct string one id, the empty string 0, and
// finds a string again whatever slot its recent-id cache puts it in.
func TestStrTableInterns(t *testing.T) {
	var st strTable
	assert.Zero(t, st.id(""))
	names := make([]string, 300) // more than the cache holds, many sharing a slot
	for i := range names {
		names[i] = fmt.Sprintf("h%d", i)
	}
	ids := make(map[string]int32)
	for round := 0; round < 2; round++ {
		for _, s := range names {
			id := st.id(string([]byte(s))) // an equal string at another address
			if round == 0 {
				assert.NotContains(t, ids, s)
				ids[s] = id
			}
			assert.Equal(t, ids[s], id, s)
			assert.Equal(t, s, st.strs[id])
		}
	}
	assert.Len(t, st.strs, len(names)+1)
}

// The messages a run records most take at most 20 bytes each, not a struct's
// 80: a large run's tables are what its peak memory holds beside its
// history when the history is built.
func TestMsgTableRecordsCompactly(t *testing.T) {
	msgs := []lease.Message{
		{Kind: lease.KindAcquire, ReqID: 1<<32 | 7, Client: "h1", Resource: "lock", TTL: 5 * time.Second, SentAt: 42},
		{Kind: lease.KindAcquireReply, Err: lease.CodeHeld, Resource: "lock", Holder: "h2", Remaining: time.Second,
			GrantorTime: 3 * time.Minute},
		{Kind: lease.KindWrite, Client: "h1", Resource: "lock", Key: "x", Value: []byte("h1/12/3"), Token: 3},
		{Kind: lease.KindRenewReply, Resource: "lock", Token: 3, TTL: 5 * time.Second, GrantorTime: 3 * time.Minute},
	}
	var table msgTable
	for i := range msgs {
		table.add(&msgs[i])
	}
	ch := table.chunks[0]
	for i := range msgs {
		begin := 0
		if i > 0 {
			begin = int(ch.end[i-1])
		}
		assert.LessOrEqual(t, int(ch.end[i])-begin, 20, "message %d (%s)", i, msgs[i].Kind)
	}
}

// Registrations are carved from shared chunks: each message's slice is its
// own, capped at its length, so nothing written to one shows in another,
// and a value recorded again is the string interned the first time.
func TestMsgTableRegistrationsAreCarved(t *testing.T) {
	var tab msgTable
	var got [][]history.KV
	for i := range kvChunkLen {
		m := lease.Message{Kind: lease.KindListReply, Keys: []lease.KV{
			{Key: fmt.Sprintf("svc/s%d", i), Value: []byte("owner")}, {Key: "svc/x", Value: []byte(fmt.Sprint(i))}}}
		p := tab.add(&m)
		got = append(got, tab.keys[len(tab.keys)-1])
		require.Equal(t, int32(i), p)
	}
	for i, kvs := range got {
		require.Len(t, kvs, 2)
		assert.Equal(t, 2, cap(kvs), "message %d: capped, so an append cannot reach the next", i)
		assert.Equal(t, []history.KV{{Key: fmt.Sprintf("svc/s%d", i), Value: "owner"}, {Key: "svc/x", Value: fmt.Sprint(i)}}, kvs)
	}
	assert.Same(t, unsafe.StringData(got[0][0].Value), unsafe.StringData(got[kvChunkLen-1][0].Value),
		"a value seen before is the interned string")
}
