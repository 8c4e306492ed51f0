package redsync

import (
	"bufio"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

func TestReadCommandAndReplies(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n*1\r\n$4\r\nPING\r\n+bad\r\n"))
	args, err := readCommand(r)
	require.NoError(t, err)
	assert.Equal(t, []string{"SET", "k", ""}, args)
	args, err = readCommand(r)
	require.NoError(t, err)
	assert.Equal(t, []string{"PING"}, args)
	_, err = readCommand(r)
	assert.ErrorIs(t, err, errProtocol)

	for _, tt := range []struct {
		r    reply
		wire string
	}{
		{ok, "+OK\r\n"}, {errorReply("ERR x"), "-ERR x\r\n"}, {integer(-1), ":-1\r\n"},
		{bulk("ab"), "$2\r\nab\r\n"}, {nullBulk(), "$-1\r\n"},
	} {
		assert.Equal(t, tt.wire, string(tt.r.append(nil)))
	}
}

// The scripts' SHA1s and redsync's bodies are checked end to end by
// TestRedsyncAgainstTheServer: EVALSHA misses the empty cache, and
// redigo's fallback EVAL sends redsync's own body, which must hash to a
// known script.
func TestCommands(t *testing.T) {
	t0 := epoch.Add(time.Hour)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	del, touch := "e950836ed1e694540c503ef9972b8de518044d3b", "d75bb8b5bd13532ddedd17762e772346e39b321e"
	steps := []struct {
		at   int
		cmd  string
		want string
	}{
		{0, "SET lock a NX PX 100", `"OK"`},
		{50, "SET lock b NX PX 100", "(nil)"},
		{100, "GET lock", `"a"`}, // present at its expiry instant exactly
		{100, "PTTL lock", "0"},
		{101, "GET lock", "(nil)"}, // gone after it
		{101, "PTTL lock", "-2"},
		{101, "SET lock b NX PX 100", `"OK"`},
		{110, "EVALSHA " + touch + " 1 lock b 500", "(error) " + errNoScript},
		{110, "SCRIPT LOAD return-1", "(error) ERR leasesim's simulated Redis runs no Lua: unknown script " + scriptSHA("return-1")},
		{110, "EVAL return-1 0", "(error) ERR leasesim's simulated Redis runs no Lua: unknown script " + scriptSHA("return-1")},
		{120, "INCR lock:token", "1"},
		{121, "INCR lock:token", "2"},
		{122, "INCR lock", "(error) " + errNotInteger},
		{123, "SET lock c PX 0", "(error) ERR invalid expire time in 'set' command"},
		{123, "SET lock c NX XX", "(error) " + errSyntax},
		{124, "FLUSHALL", "(error) ERR unknown command 'FLUSHALL', with args beginning with: "},
		{125, "PEXPIRE lock 1000", "1"},
		{1125, "GET lock", `"b"`},
		{1125, "DEL lock nothere", "1"},
		{1127, "PING", `"PONG"`},
	}
	st := newRedisState(newKeyspace(nil))
	for _, s := range steps {
		got := st.exec(strings.Fields(s.cmd), at(s.at))
		assert.Equal(t, s.want, got.String(), "%s at %d ms", s.cmd, s.at)
	}
	// The scripts, once in the cache, run natively.
	st.loaded[del], st.loaded[touch] = true, true
	for _, s := range []struct{ cmd, want string }{
		{"SET lock v NX PX 100", `"OK"`},
		{"EVALSHA " + touch + " 1 lock other 500", "0"},
		{"EVALSHA " + touch + " 1 lock v 500", "1"},
		{"PTTL lock", "500"},
		{"EVALSHA " + del + " 1 lock other", "0"},
		{"EVALSHA " + del + " 1 lock v", "1"},
		{"EVALSHA " + del + " 1 lock v", "-1"},
		{"EVALSHA " + touch + " 1 lock v", "(error) ERR Error running script (call to touch): Lua redis() command arguments must be strings or integers"},
	} {
		assert.Equal(t, s.want, st.exec(strings.Fields(s.cmd), t0).String(), s.cmd)
	}
}

func TestAppendOnlyKeepsKeysAcrossRestart(t *testing.T) {
	now := epoch.Add(time.Minute)
	for _, tt := range []struct {
		name string
		aof  bool
		want string
	}{{"appendonly", true, `"v"`}, {"volatile", false, "(nil)"}} {
		t.Run(tt.name, func(t *testing.T) {
			storage := gohost.NewStorage()
			var store *gohost.Storage
			if tt.aof {
				store = storage
			}
			st := newRedisState(newKeyspace(store))
			st.exec([]string{"SET", "lock", "v", "NX", "PX", "1000"}, now)
			st.exec([]string{"SET", "gone", "x"}, now)
			st.exec([]string{"DEL", "gone"}, now)
			if tt.aof {
				store = storage
			}
			again := newRedisState(newKeyspace(store)) // the restarted life
			assert.Equal(t, tt.want, again.exec([]string{"GET", "lock"}, now.Add(time.Second)).String())
			assert.Equal(t, "(nil)", again.exec([]string{"GET", "lock"}, now.Add(time.Second+1)).String(), "the expiry is kept")
			assert.Equal(t, "(nil)", again.exec([]string{"GET", "gone"}, now).String())
		})
	}
}

func TestRequestsAndResponses(t *testing.T) {
	del := "e950836ed1e694540c503ef9972b8de518044d3b"
	for _, tt := range []struct {
		cmd  string
		rep  reply
		in   history.Payload
		out  history.Payload
		skip bool
	}{
		{cmd: "SET lock v NX PX 8000", rep: ok, in: history.Payload{Kind: "set_nx_px", Key: "lock", Value: "v", TTL: 8 * time.Second},
			out: history.Payload{Kind: "set_nx_px_reply", OK: true}},
		{cmd: "SET lock v NX PX 8000", rep: nullBulk(), in: history.Payload{Kind: "set_nx_px", Key: "lock", Value: "v", TTL: 8 * time.Second},
			out: history.Payload{Kind: "set_nx_px_reply"}},
		{cmd: "GET lock", rep: bulk("v"), in: history.Payload{Kind: "get", Key: "lock"},
			out: history.Payload{Kind: "get_reply", OK: true, Value: "v"}},
		{cmd: "INCR t", rep: integer(3), in: history.Payload{Kind: "incr", Key: "t"},
			out: history.Payload{Kind: "incr_reply", OK: true, Revision: 3}},
		{cmd: "INCR t", rep: errorReply(errNotInteger), in: history.Payload{Kind: "incr", Key: "t"},
			out: history.Payload{Kind: "incr_reply", Err: "not_integer"}},
		{cmd: "EVALSHA " + del + " 1 lock v", rep: integer(-1), in: history.Payload{Kind: "del_if_equal", Key: "lock", Value: "v"},
			out: history.Payload{Kind: "del_if_equal_reply"}},
		{cmd: "EVALSHA " + del + " 1 lock v", rep: errorReply(errNoScript), in: history.Payload{Kind: "del_if_equal", Key: "lock", Value: "v"},
			out: history.Payload{Kind: "del_if_equal_reply", Err: "bad_request"}},
		{cmd: "SET lock v", skip: true},
		{cmd: "SET lock v PX 10", skip: true},
		{cmd: "PING", skip: true},
		{cmd: "EVALSHA 0000 1 lock v", skip: true},
	} {
		in, ok := request(strings.Fields(tt.cmd))
		if tt.skip {
			assert.False(t, ok, tt.cmd)
			continue
		}
		require.True(t, ok, tt.cmd)
		assert.Equal(t, tt.in, in, tt.cmd)
		tt.out.Clock = time.Second
		assert.Equal(t, tt.out, response(in, tt.rep, time.Second), tt.cmd)
	}
}
