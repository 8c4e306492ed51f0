package leasewire_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
)

// Lines of a small history: a grant to h1 and its write, as WriteHistory
// writes them.
const (
	header    = `{"type":"header","version":1,"producer":"test","spec":"lease-store","determinism":"exact","lease":{"ttl_ns":10000000000},"lease_servers":["g"],"fenced_servers":["r"],"holders":["h1"],"resources":["lock"],"start_ns":0,"heal_ns":0}`
	acquire   = `{"type":"operation","client":"h1","incarnation":1,"server":"g","id":7,"call_ns":0,"processed_ns":1000,"return_ns":2000,"input":{"kind":"acquire","resource":"lock","holder":"h1","ttl_ns":10000000000},"output":{"kind":"acquire_reply","resource":"lock","token":1,"ttl_ns":10000000000,"ok":true,"clock_ns":1000}}`
	belief    = `{"type":"belief","holder":"h1","incarnation":0,"resource":"lock","token":1,"start_ns":2000,"end_ns":5000,"reason":"release"}`
	write     = `{"type":"operation","client":"h1","incarnation":1,"server":"r","id":8,"call_ns":3000,"processed_ns":3500,"return_ns":4000,"input":{"kind":"write","resource":"lock","key":"k","value":"v","holder":"h1","token":1},"output":{"kind":"write_reply","resource":"lock","token":1,"ok":true}}`
	writeRec  = `{"type":"write","store":"r","resource":"lock","key":"k","writer":"h1","incarnation":1,"token":1,"at_ns":3500,"accepted":true}`
	endRecord = `{"type":"end","at_ns":9000,"max_drift_ppb":0}`
)

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestReadHistoryBuildsWhatTheCheckersRead(t *testing.T) {
	h, meta, err := leasewire.ReadHistory(strings.NewReader(lines(header, acquire, belief, write, writeRec, endRecord)), "h.jsonl")
	require.NoError(t, err)
	assert.Equal(t, "test", meta.Producer)
	assert.Equal(t, "g", h.Grantor)
	assert.Equal(t, "r", h.Resource)
	require.Equal(t, 2, h.NumOps())
	op := h.Op(0)
	assert.Equal(t, uint64(1), op.Incarnation)
	assert.Equal(t, uint64(7), op.ID)
	in, err := leasewire.Message(op.Input)
	require.NoError(t, err, "the input is leasesim's request")
	assert.Equal(t, lease.KindAcquire, in.Kind)
	assert.Equal(t, lease.Addr("h1"), in.Client)
	out, err := leasewire.Message(op.Output)
	require.NoError(t, err, "the output is leasesim's reply")
	assert.Equal(t, lease.CodeOK, out.Err)
	assert.Equal(t, uint64(1), out.Token)
	assert.Equal(t, "v", h.Op(1).Input.Value)
	assert.Equal(t, int64(9000), int64(h.End))
	require.Len(t, h.Beliefs, 1)

	h, _, err = leasewire.ReadHistory(strings.NewReader(lines(header,
		`{"type":"fault","kind":"stall-conns","start_ns":1,"end_ns":2,"detail":"[g] | [h1]"}`, endRecord)), "h.jsonl")
	require.NoError(t, err, "a goroutine host's fault kind")
	require.Len(t, h.Faults, 1)
	assert.True(t, h.Faults[0].Touches("h1"))
	assert.False(t, h.Faults[0].Touches("r"))
}

// TestActionsStretchBeliefs: an action after a belief ended stretches it,
// and an action under a token nobody believed is an inferred belief, as
// the simulator's recorder makes them.
func TestActionsStretchBeliefs(t *testing.T) {
	late := `{"type":"action","holder":"h1","incarnation":0,"resource":"lock","token":1,"at_ns":6000,"what":"write"}`
	stray := `{"type":"action","holder":"h2","incarnation":0,"resource":"lock","token":1,"at_ns":7000,"what":"write"}`
	h, _, err := leasewire.ReadHistory(strings.NewReader(lines(header, acquire, belief, late, stray, endRecord)), "h.jsonl")
	require.NoError(t, err)
	require.Len(t, h.Beliefs, 2)
	assert.Equal(t, int64(6000), int64(h.Beliefs[0].End))
	assert.Equal(t, int64(6000), int64(h.Beliefs[0].LastAct))
	assert.True(t, h.Beliefs[1].Inferred)
	assert.Equal(t, "h2", h.Beliefs[1].Holder)
}

// TestReadHistoryRefusesWhatTheCheckersCannotRead: each refusal is a
// *history.LineError naming the line and the field.
func TestReadHistoryRefusesWhatTheCheckersCannotRead(t *testing.T) {
	tests := []struct {
		name  string
		input string
		line  int
		field string
		why   string
	}{
		{"an unknown expiry policy of leasesim's lease store", lines(strings.Replace(header, `"lease-store"`, `"lease-store/bogus"`, 1), endRecord),
			1, "spec", `"lease-store/bogus"`},
		{"a hold the spec does not declare", lines(strings.Replace(header, `"ttl_ns":10000000000}`, `"ttl_ns":10000000000,"rho_ppb":1000,"hold_ppb":0}`, 1), endRecord),
			1, "lease.hold_ppb", `the spec "lease-store" holds a lease 1000 ppb`},
		{"a foreign kind", lines(header, strings.Replace(acquire, `"kind":"acquire"`, `"kind":"set_nx_px"`, 1), endRecord),
			2, "input.kind", `"set_nx_px"`},
		{"a foreign error code", lines(header, strings.Replace(acquire, `"ok":true`, `"err":"nope"`, 1), endRecord),
			2, "output.err", `"nope"`},
		{"ok and an error", lines(header, strings.Replace(acquire, `"ok":true`, `"ok":true,"err":"held"`, 1), endRecord),
			2, "output.ok", "held"},
		{"an etcd lease id", lines(header, strings.Replace(acquire, `"ttl_ns":10000000000}`, `"ttl_ns":10000000000,"lease":3}`, 1), endRecord),
			2, "input.lease", "lease ids"},
		{"a reply that does not answer", lines(header, strings.Replace(acquire, `"acquire_reply"`, `"renew_reply"`, 1), endRecord),
			2, "output.kind", "does not answer"},
		{"a reply as the request", lines(header, strings.Replace(acquire, `"kind":"acquire"`, `"kind":"renew_reply"`, 1), endRecord),
			2, "input.kind", "a reply"},
		{"no reply", lines(header, acquire[:strings.Index(acquire, `,"output"`)]+"}", endRecord),
			2, "output", "missing"},
		{"not processed", lines(header, strings.Replace(acquire, `"processed_ns":1000,`, ``, 1), endRecord),
			2, "processed_ns", "missing"},
		{"a sequence number past 32 bits", lines(header, strings.Replace(acquire, `"id":7`, `"id":4294967296`, 1), endRecord),
			2, "id", "32-bit"},
		{"a write record the operations do not show", lines(header, acquire, belief, writeRec, endRecord),
			4, "", "do not show"},
		{"a write record that differs", lines(header, acquire, write, strings.Replace(writeRec, `"token":1`, `"token":2`, 1), endRecord),
			4, "", "does not match"},
		{"write records missing", lines(header, acquire, write, write, writeRec, endRecord),
			6, "", "give all of them or none"},
		{"a fault kind of no kernel", lines(header, `{"type":"fault","kind":"meteor","nodes":["g"],"start_ns":1,"end_ns":2}`, endRecord),
			2, "kind", `"meteor"`},
		{"a fault on three nodes", lines(header, `{"type":"fault","kind":"pause","nodes":["g","r","h1"],"start_ns":1,"end_ns":2}`, endRecord),
			2, "nodes", "3 nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := leasewire.ReadHistory(strings.NewReader(tt.input), "h.jsonl")
			require.Error(t, err)
			assert.ErrorIs(t, err, history.ErrInvalid)
			var le *history.LineError
			require.True(t, errors.As(err, &le), "%v", err)
			assert.Equal(t, "h.jsonl", le.File)
			assert.Equal(t, tt.line, le.Line, "%v", err)
			assert.Equal(t, tt.field, le.Field, "%v", err)
			assert.Contains(t, err.Error(), tt.why)
		})
	}
}

// A replicated store's members, named in lease_servers, are its first
// member the grantor and all of them Members, and are written back.
func TestReadHistoryKeepsAStoresMembers(t *testing.T) {
	input := lines(strings.Replace(header, `["g"]`, `["g","g2","g3"]`, 1), endRecord)
	h, meta, err := leasewire.ReadHistory(strings.NewReader(input), "h.jsonl")
	require.NoError(t, err)
	assert.Equal(t, "g", h.Grantor)
	assert.Equal(t, []string{"g", "g2", "g3"}, h.Members)
	var out strings.Builder
	require.NoError(t, leasewire.WriteHistory(&out, h, meta))
	assert.Contains(t, out.String(), `"lease_servers":["g","g2","g3"]`)
}

// FuzzReadHistory: ReadHistory never panics, and what it accepts it
// writes back, and reads back alike.
func FuzzReadHistory(f *testing.F) {
	f.Add(lines(header, acquire, belief, write, writeRec, endRecord))
	f.Add(lines(header, acquire, endRecord))
	f.Add(lines(strings.Replace(header, `["g"]`, `["g","g2","g3"]`, 1), acquire, endRecord))
	f.Add(lines(header, belief, `{"type":"action","holder":"h1","incarnation":0,"resource":"lock","token":1,"at_ns":1000,"what":"write"}`, endRecord))
	f.Add(lines(header, `{"type":"fault","kind":"pause","nodes":["g"],"start_ns":1,"end_ns":2}`, endRecord))
	f.Fuzz(func(t *testing.T, input string) {
		h, meta, err := leasewire.ReadHistory(strings.NewReader(input), "fuzz")
		if err != nil {
			var le *history.LineError
			require.True(t, errors.As(err, &le), "every refusal names a line: %v", err)
			return
		}
		var out strings.Builder
		require.NoError(t, leasewire.WriteHistory(&out, h, meta), "what ReadHistory reads, WriteHistory writes")
		h2, _, err := leasewire.ReadHistory(strings.NewReader(out.String()), "again")
		require.NoError(t, err, "what WriteHistory writes, ReadHistory reads:\n%s", out.String())
		var again strings.Builder
		require.NoError(t, leasewire.WriteHistory(&again, h2, meta))
		assert.Equal(t, out.String(), again.String())
	})
}
