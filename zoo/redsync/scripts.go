package redsync

import (
	"crypto/sha1"
	"encoding/hex"
)

// The Lua scripts redsync sends (redsync v4.18.1, scripts.go), known by
// the SHA1 of their body: EVALSHA names a script by it, and EVAL's body
// hashes to it. The simulated Redis embeds no Lua interpreter: it runs
// these three natively (keyspace.go) and refuses any other script with a
// RESP error. A test checks that redsync's own EVAL bodies hash to these.

// script is a script the simulated Redis can run.
type script uint8

const (
	_ script = iota // the zero script is none: knownScripts never maps to it
	// deleteScript: if GET KEYS[1] == ARGV[1] then DEL (1), absent (-1),
	// else 0. Mutex.Unlock and the release after a failed Lock.
	deleteScript
	// touchScript: if GET KEYS[1] == ARGV[1] then PEXPIRE KEYS[1] ARGV[2]
	// (1), else 0. Mutex.Extend.
	touchScript
	// touchWithSetNXScript: touchScript, else SET KEYS[1] ARGV[1] PX
	// ARGV[2] NX (1 if set), else 0. Mutex.Extend with WithSetNXOnExtend.
	touchWithSetNXScript
)

// knownScripts maps a script's SHA1 (lower-case hex) to the script.
var knownScripts = map[string]script{
	"e950836ed1e694540c503ef9972b8de518044d3b": deleteScript,
	"d75bb8b5bd13532ddedd17762e772346e39b321e": touchScript,
	"b6b55c439e02c6f52ffb8be7ec8c0d0ac816ea79": touchWithSetNXScript,
}

// scriptSHA returns the SHA1 of a script body, as Redis names scripts.
func scriptSHA(body string) string {
	sum := sha1.Sum([]byte(body))
	return hex.EncodeToString(sum[:])
}

// String names the script.
func (s script) String() string {
	switch s {
	case deleteScript:
		return "delete"
	case touchScript:
		return "touch"
	case touchWithSetNXScript:
		return "touch-with-setnx"
	}
	return "unknown"
}
