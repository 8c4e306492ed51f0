package history_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

const header = `{"type":"header","version":1,"producer":"test","determinism":"exact","lease":{"ttl_ns":10000000000},"start_ns":0}`
const end = `{"type":"end","at_ns":100}`

// everyEvent has one event of every type with every field set.
func everyEvent() []history.Event {
	return []history.Event{
		&history.Operation{Client: "h1", Incarnation: 2, Server: "g", ID: 7, Call: 1, Processed: 2, Return: 3,
			Input: history.Payload{Kind: "acquire", Resource: "lock", Key: "k", Value: "v", Holder: "h1", HolderIncarnation: 2,
				Token: 4, TTL: 5, Lease: 6, Revision: 7, Version: "8", OK: true, Err: "held", Clock: -9, Remaining: 10,
				State: "done:3", StateToken: 3, Prefix: "svc/", Keys: []history.KV{{Key: "k", Value: "v"}}},
			Output: history.Payload{Kind: "acquire_reply"}, Msg: []uint64{11, 12}},
		&history.Operation{Client: "h2", Server: "g", Call: 5, Processed: history.Unknown, Return: history.Never,
			Input: history.Payload{Kind: "renew"}},
		&history.BeliefInterval{Holder: "h1", Incarnation: 2, Resource: "lock", Token: 4, Start: 3, End: 30,
			Reason: history.EndDeadline, LocalDeadline: 29, LastAct: 20},
		&history.Action{Holder: "h1", Incarnation: 2, Resource: "lock", Token: 4, At: 20, What: "write", Msg: []uint64{13}},
		&history.FencedWrite{Store: "r", Resource: "lock", Key: "k", Writer: "h1", Incarnation: 2, Token: 0, At: 21,
			Accepted: false, Msg: []uint64{14}},
		&history.CheckpointAccepted{Resource: "lock", Writer: "h1", Incarnation: 2, Token: 4, At: 22, State: "12", Msg: []uint64{15}},
		&history.UnitDone{Task: "t1", Index: 0, Worker: "w1", Incarnation: 1, Token: 4, At: 23},
		&history.SideEffect{From: "h1", Incarnation: 2, Resource: "lock", ID: "mail-1", At: 24, Msg: []uint64{16}},
		&history.RegistrationSighted{Reader: "r1", Key: "svc/a", Owner: "h1", At: 25},
		&history.FaultWindow{Kind: "partition", Nodes: []string{"h1", "g"}, Start: 10, End: 40, Detail: "[[h1] [g]]"},
		&history.TaskRecord{ID: "t1", Units: 3, UnitTime: 7, Arrival: 0, Done: 50, DoneUnanswered: 40},
		&history.TaskRecord{ID: "t2", Units: 1, Arrival: 60, Done: history.Never, DoneUnanswered: history.Never},
		&history.BeliefInterval{Holder: "h2", Resource: "lock", Token: 5, Start: 61, End: 62, Reason: history.EndRun,
			LastAct: 61, Inferred: true},
		&history.PremiseRecord{Name: "failpoint-hit", Held: false, Detail: "the armed failpoint was never reached"},
		&history.LeaderTerm{Server: "g", Members: []string{"g", "g2", "g3"}, Term: 2, Start: 5, End: 45,
			Extension: 1000, CheckpointInterval: 2500, CheckPeriod: 100},
		&history.Declaration{Detector: "nodelifecycle", Member: "node-1", Dead: true, At: 50, Grace: 40},
		&history.Declaration{Detector: "nodelifecycle", Member: "node-1", Dead: false, At: 60},
	}
}

func fullHeader() history.Header {
	return history.Header{Version: 1, Producer: "test", Spec: "lease-store", Determinism: history.Verified,
		Scenario: "kleppmann-gc-pause", Seed: 42,
		Lease: history.Lease{TTL: 10 * time.Second, RhoPPB: 1000, RenewInterval: 3, Margin: 4, RequestTimeout: 5,
			BackoffMax: 6, TTLMin: 7, TTLMax: 8, DetectBound: 9},
		LeaseServers: []string{"g"}, FencedServers: []string{"r"}, Holders: []string{"h1", "h2"},
		Resources: []string{"lock"}, Contended: []string{"lock"}, Start: 0, Heal: 40}
}

// readAll reads a whole history.
func readAll(data []byte) (history.Header, []history.Event, history.RunEnd, error) {
	r, err := history.NewReader(bytes.NewReader(data), "h.jsonl")
	if err != nil {
		return history.Header{}, nil, history.RunEnd{}, err
	}
	var events []history.Event
	for {
		e, err := r.Next()
		if err == io.EOF {
			return r.Header(), events, r.End(), nil
		}
		if err != nil {
			return history.Header{}, nil, history.RunEnd{}, err
		}
		events = append(events, e)
	}
}

// writeAll writes a whole history.
func writeAll(t testing.TB, h history.Header, events []history.Event, end history.RunEnd) []byte {
	var buf bytes.Buffer
	w, err := history.NewWriter(&buf, h)
	require.NoError(t, err)
	for _, e := range events {
		require.NoError(t, w.Write(e), "writing %#v", e)
	}
	require.NoError(t, w.End(end))
	return buf.Bytes()
}

func TestEveryFieldRoundTrips(t *testing.T) {
	data := writeAll(t, fullHeader(), everyEvent(), history.RunEnd{At: 100, MaxDriftPPB: 0, StoreSyncs: 9})
	h, events, end, err := readAll(data)
	require.NoError(t, err, "%s", data)
	assert.Equal(t, fullHeader(), h)
	assert.Equal(t, everyEvent(), events)
	assert.Equal(t, history.RunEnd{At: 100, MaxDriftPPB: 0, StoreSyncs: 9}, end)
	again := writeAll(t, h, events, end)
	assert.Equal(t, string(data), string(again), "the writer's output is canonical")
}

func TestAbsentMeansAbsent(t *testing.T) {
	_, events, end, err := readAll([]byte(strings.Join([]string{header,
		`{"type":"operation","client":"h1","server":"g","id":1,"call_ns":5,"input":{"kind":"acquire"}}`,
		`{"type":"belief","holder":"h1","resource":"lock","token":1,"start_ns":5,"end_ns":9,"reason":"crash"}`,
		`{"type":"task","id":"t","units":1,"unit_time_ns":0,"arrival_ns":0}`, end}, "\n")))
	require.NoError(t, err)
	op := events[0].(*history.Operation)
	assert.Equal(t, history.Unknown, op.Processed, "processed left out is unknown")
	assert.Equal(t, history.Never, op.Return, "return left out is never returned")
	assert.False(t, op.Returned())
	assert.Equal(t, history.Payload{}, op.Output)
	assert.Equal(t, history.Unknown, events[1].(*history.BeliefInterval).LastAct)
	assert.Equal(t, history.Never, events[2].(*history.TaskRecord).Done)
	assert.Equal(t, int64(-1), end.MaxDriftPPB, "drift left out is not measured")
}

func TestReaderRejects(t *testing.T) {
	op := `{"type":"operation","client":"h1","server":"g","id":1,"call_ns":5,"input":{"kind":"acquire"}}`
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"empty input", nil, "h.jsonl: empty input: the first line must be the header"},
		{"header not first", []string{op}, `h.jsonl:1: field "type": want "header" on the first line, got "operation"`},
		{"other version", []string{`{"type":"header","version":2,"future":true}`},
			`h.jsonl:1: field "future": unknown field`},
		{"version checked", []string{`{"type":"header","version":2,"producer":"x","determinism":"exact","lease":{"ttl_ns":1},"start_ns":0}`},
			`h.jsonl:1: field "version": unsupported schema version 2 (want 1)`},
		{"no version", []string{`{"type":"header"}`}, `h.jsonl:1: field "version": missing`},
		{"bad determinism", []string{`{"type":"header","version":1,"producer":"x","determinism":"mostly","lease":{"ttl_ns":1},"start_ns":0}`},
			`h.jsonl:1: field "determinism": unknown level "mostly" (want "exact", "verified" or "statistical")`},
		{"missing ttl", []string{`{"type":"header","version":1,"producer":"x","determinism":"exact","lease":{},"start_ns":0}`},
			`h.jsonl:1: field "lease.ttl_ns": missing`},
		{"hold beyond a second TTL", []string{`{"type":"header","version":1,"producer":"x","determinism":"exact","lease":{"ttl_ns":1,"hold_ppb":1000000001},"start_ns":0}`},
			`h.jsonl:1: field "lease.hold_ppb": must be in [0, 1e9], got 1000000001`},
		{"trailing comma", []string{header, `{"type":"unit",}`}, `h.jsonl:2:15: a comma before the closing bracket or brace`},
		{"syntax error", []string{header, `{"type":"unit","at_ns":tru}`}, `h.jsonl:2:27: field "at_ns": invalid character '}' in literal true (expecting 'e')`},
		{"null in a list", []string{header, `{"type":"fault","kind":"pause","nodes":["a",null]}`}, `h.jsonl:2: field "nodes[1]": want a string, got null`},
		{"not an object", []string{header, `[1]`}, `h.jsonl:2:1: want an object, got an array`},
		{"trailing data", []string{header, op + ` {}`}, `h.jsonl:2:95: invalid character '{' after top-level value`},
		{"unknown type", []string{header, `{"type":"opertion"}`},
			`h.jsonl:2: field "type": unknown record type "opertion" (want "operation", "belief", "action", "write", "checkpoint", "unit", "effect", "sighting", "fault", "task", "premise", "leader", "declaration", "end")`},
		{"type of the wrong type", []string{header, `{"type":7}`}, `h.jsonl:2: field "type": want a string, got a number`},
		{"second header", []string{header, header}, `h.jsonl:2: field "type": a second header: only the first line is a header`},
		{"unknown field", []string{header, `{"type":"action","holder":"h","resource":"r","token":1,"at_ns":1,"tokn":2}`},
			`h.jsonl:2: field "tokn": unknown field`},
		{"field of another type", []string{header, `{"type":"action","holder":"h","resource":"r","token":1,"at_ns":1,"accepted":true}`},
			`h.jsonl:2: field "accepted": unknown field`},
		{"case matters", []string{header, `{"type":"action","Holder":"h"}`}, `h.jsonl:2: field "Holder": unknown field`},
		{"duplicate field", []string{header, `{"type":"action","token":1,"token":2}`}, `h.jsonl:2:28: field "token": duplicate field`},
		{"duplicate nested field", []string{header, `{"type":"operation","input":{"kind":"a","kind":"b"}}`},
			`h.jsonl:2:41: field "input.kind": duplicate field`},
		{"wrong type", []string{header, `{"type":"action","holder":"h","resource":"r","token":"4","at_ns":1}`},
			`h.jsonl:2: field "token": want a non-negative integer, got a string`},
		{"negative token", []string{header, `{"type":"action","holder":"h","resource":"r","token":-4,"at_ns":1}`},
			`h.jsonl:2: field "token": want a non-negative integer, got number -4`},
		{"fractional time", []string{header, `{"type":"action","holder":"h","resource":"r","token":4,"at_ns":1.5}`},
			`h.jsonl:2: field "at_ns": want an integer, got number 1.5`},
		{"time out of range", []string{header, `{"type":"action","holder":"h","resource":"r","token":4,"at_ns":99999999999999999999}`},
			`h.jsonl:2: field "at_ns": 99999999999999999999 is out of range for an integer`},
		{"null", []string{header, `{"type":"action","holder":null}`}, `h.jsonl:2: field "holder": want a string, got null`},
		{"null pointer", []string{header, `{"type":"action","token":null}`}, `h.jsonl:2: field "token": want a non-negative integer, got null`},
		{"nested wrong type", []string{header, `{"type":"operation","client":"h","server":"g","id":1,"call_ns":0,"input":{"kind":"list","keys":[{"key":1}]}}`},
			`h.jsonl:2: field "input.keys[0].key": want a string, got a number`},
		{"missing field", []string{header, `{"type":"action","holder":"h","resource":"r","token":4}`}, `h.jsonl:2: field "at_ns": missing`},
		{"empty name", []string{header, `{"type":"action","holder":"","resource":"r","token":4,"at_ns":1}`},
			`h.jsonl:2: field "holder": missing or empty`},
		{"negative time", []string{header, `{"type":"action","holder":"h","resource":"r","token":4,"at_ns":-1}`},
			`h.jsonl:2: field "at_ns": must not be negative, got -1`},
		{"never is not a time", []string{header, `{"type":"operation","client":"h","server":"g","id":1,"call_ns":0,"return_ns":9223372036854775807,"input":{"kind":"a"}}`},
			`h.jsonl:2: field "return_ns": 9223372036854775807 is not a time (leave the field out for an end that never came)`},
		{"return before call", []string{header, `{"type":"operation","client":"h","server":"g","id":1,"call_ns":5,"return_ns":4,"input":{"kind":"a"}}`},
			`h.jsonl:2: field "return_ns": 4 is before call_ns 5`},
		{"return before processed", []string{header, `{"type":"operation","client":"h","server":"g","id":1,"call_ns":5,"processed_ns":7,"return_ns":6,"input":{"kind":"a"}}`},
			`h.jsonl:2: field "return_ns": 6 is before processed_ns 7`},
		{"no input kind", []string{header, `{"type":"operation","client":"h","server":"g","id":1,"call_ns":5,"input":{}}`},
			`h.jsonl:2: field "input.kind": missing or empty`},
		{"empty output", []string{header, `{"type":"operation","client":"h","server":"g","id":1,"call_ns":5,"input":{"kind":"a"},"output":{}}`},
			`h.jsonl:2: field "output": empty (leave it out when the reply was not observed)`},
		{"end before start", []string{header, `{"type":"belief","holder":"h","resource":"r","token":1,"start_ns":5,"end_ns":4,"reason":"lost"}`},
			`h.jsonl:2: field "end_ns": 4 is before start_ns 5`},
		{"unknown reason", []string{header, `{"type":"belief","holder":"h","resource":"r","token":1,"start_ns":5,"end_ns":6,"reason":"bored"}`},
			`h.jsonl:2: field "reason": unknown reason "bored" (want "deadline", "release", "lost", "fenced", "crash", "end")`},
		{"last act after end", []string{header, `{"type":"belief","holder":"h","resource":"r","token":1,"start_ns":5,"end_ns":6,"reason":"lost","last_act_ns":7}`},
			`h.jsonl:2: field "last_act_ns": 7 is after end_ns 6`},
		{"invalid utf-8", []string{header, "{\"type\":\"action\",\"holder\":\"\xff\"}"}, `h.jsonl:2:28: field "holder": invalid UTF-8`},
		{"premise without held", []string{header, `{"type":"premise","name":"paused"}`}, `h.jsonl:2: field "held": missing`},
		{"leader without term", []string{header, `{"type":"leader","server":"g","start_ns":1,"end_ns":2}`},
			`h.jsonl:2: field "term": missing`},
		{"leader not a member", []string{header, `{"type":"leader","server":"g","members":["g2","g3"],"term":2,"start_ns":1,"end_ns":2}`},
			`h.jsonl:2: field "members": the leader "g" is not one of them`},
		{"negative extension", []string{header, `{"type":"leader","server":"g","term":2,"start_ns":1,"end_ns":2,"extension_ns":-1}`},
			`h.jsonl:2: field "extension_ns": must not be negative, got -1`},
		{"declaration without dead", []string{header, `{"type":"declaration","detector":"c","member":"n","at_ns":1}`},
			`h.jsonl:2: field "dead": missing`},
		{"declaration about itself", []string{header, `{"type":"declaration","detector":"c","member":"c","dead":true,"at_ns":1}`},
			`h.jsonl:2: field "member": the detector "c" declares about itself`},
		{"declaration without member", []string{header, `{"type":"declaration","detector":"c","dead":true,"at_ns":1}`},
			`h.jsonl:2: field "member": missing or empty`},
		{"negative grace", []string{header, `{"type":"declaration","detector":"c","member":"n","dead":false,"at_ns":1,"grace_ns":-5}`},
			`h.jsonl:2: field "grace_ns": must not be negative, got -5`},
		{"negative detect bound", []string{strings.Replace(header, `"ttl_ns":10000000000`, `"ttl_ns":10000000000,"detect_bound_ns":-1`, 1), end},
			`h.jsonl:1: field "lease.detect_bound_ns": must not be negative, got -1`},
		{"negative lock delay", []string{strings.Replace(header, `"ttl_ns":10000000000`, `"ttl_ns":10000000000,"lock_delay_ns":-1`, 1), end},
			`h.jsonl:1: field "lease.lock_delay_ns": must not be negative, got -1`},
		{"cut short", []string{header, op}, `h.jsonl:2: the history stops without an "end" record: it was cut short`},
		{"after the end", []string{header, end, op}, `h.jsonl:3: a record after the "end" record`},
		{"end before an event", []string{header, `{"type":"fault","kind":"pause","start_ns":5,"end_ns":500}`, end},
			`h.jsonl:3: field "at_ns": 100 is before 500, a time on line 2`},
		{"before the run", []string{`{"type":"header","version":1,"producer":"x","determinism":"exact","lease":{"ttl_ns":1},"start_ns":10}`,
			`{"type":"unit","task":"t","index":0,"worker":"w","token":1,"at_ns":5}`}, `h.jsonl:2: time 5 is before the header's start_ns 10`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, err := readAll([]byte(strings.Join(tt.lines, "\n")))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.ErrorIs(t, err, history.ErrInvalid)
			var le *history.LineError
			assert.ErrorAs(t, err, &le)
		})
	}
}

func TestBlankLinesAreSkippedAndCounted(t *testing.T) {
	_, _, _, err := readAll([]byte(header + "\n\n  \n" + `{"type":"unit"}` + "\n" + end))
	require.Error(t, err)
	assert.Equal(t, `h.jsonl:4: field "index": missing`, err.Error())
}

func TestReaderBoundsALine(t *testing.T) {
	long := header + "\n" + `{"type":"effect","from":"h","id":"` + strings.Repeat("x", history.MaxLineBytes) + `","at_ns":1}`
	_, _, _, err := readAll([]byte(long))
	require.Error(t, err)
	assert.Equal(t, "h.jsonl:2: longer than the limit of 1048576 bytes", err.Error())
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadErrorsAreNotBadInput(t *testing.T) {
	_, err := history.NewReader(io.MultiReader(strings.NewReader(header+"\n"), failingReader{}), "h.jsonl")
	require.NoError(t, err)
	r, err := history.NewReader(io.MultiReader(strings.NewReader(header+"\n"), failingReader{}), "h.jsonl")
	require.NoError(t, err)
	_, err = r.Next()
	require.EqualError(t, err, "history: reading line 2: disk on fire")
	assert.NotErrorIs(t, err, history.ErrInvalid)
}

func TestWriterRefusesWhatTheReaderWould(t *testing.T) {
	var buf bytes.Buffer
	_, err := history.NewWriter(&buf, history.Header{Producer: "x", Determinism: history.Exact})
	require.EqualError(t, err, `history:1: field "lease.ttl_ns": must be positive, got 0`)

	w, err := history.NewWriter(&buf, fullHeader())
	require.NoError(t, err)
	err = w.Write(&history.Operation{Client: "h", Server: "g", Call: 5, Processed: history.Unknown, Return: 4,
		Input: history.Payload{Kind: "a"}})
	require.EqualError(t, err, `history:2: field "return_ns": 4 is before call_ns 5`)
	err = w.Write(&history.Operation{Client: "h", Server: "g", Call: 5, Processed: history.Never, Return: history.Never,
		Input: history.Payload{Kind: "a"}})
	require.EqualError(t, err, `history:2: field "processed_ns": 9223372036854775807 is not a time (leave the field out for an end that never came)`)
	err = w.Write(&history.SideEffect{From: "h", ID: "\xff", At: 1})
	require.EqualError(t, err, `history:2: field "id": not valid UTF-8`)
	err = w.Write(&history.FaultWindow{Kind: "pause", Start: 0, End: 50})
	require.NoError(t, err)
	err = w.End(history.RunEnd{At: 49, MaxDriftPPB: -1})
	require.EqualError(t, err, `history:3: field "at_ns": 49 is before 50, a time of an event written earlier`)
	require.NoError(t, w.End(history.RunEnd{At: 50, MaxDriftPPB: -1}))
	require.EqualError(t, w.Write(&history.FaultWindow{Kind: "pause", Start: 0, End: 50}), `history:4: a record after the "end" record`)
	assert.Equal(t, 3, w.Lines())
}

func TestTheKleppmannStoryReads(t *testing.T) {
	data, err := os.ReadFile("testdata/histories/kleppmann.jsonl")
	require.NoError(t, err)
	h, events, end, err := readAll(data)
	require.NoError(t, err)
	assert.Equal(t, "kleppmann-gc-pause", h.Scenario)
	require.Len(t, events, 9)
	stale := events[8].(*history.FencedWrite)
	assert.False(t, stale.Accepted, "the paused holder's write under token 1 is refused")
	assert.Equal(t, uint64(2), end.StoreSyncs)
	assert.Equal(t, string(data), string(writeAll(t, h, events, end)), "the file is in canonical form")
}
