package redsync

import (
	"strconv"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// The commands P3 judges, in the expiring-key specification's payload
// conventions (/work/notes/ZOO.md): SET key value NX PX ms is set_nx_px,
// GET get, INCR incr, redsync's delete script del_if_equal and its touch
// scripts pexpire_if_equal. Other commands (PING, CLIENT, SCRIPT, plain
// SET) are not operations of the specification and are not recorded.

// request returns the expiring-key request a command is, if it is one.
// The client's recording connection calls it on what it sends.
func request(args []string) (history.Payload, bool) {
	if len(args) == 0 {
		return history.Payload{}, false
	}
	switch cmd := strings.ToUpper(args[0]); {
	case cmd == "GET" && len(args) == 2:
		return history.Payload{Kind: string(model.OpGet), Key: args[1]}, true
	case cmd == "INCR" && len(args) == 2:
		return history.Payload{Kind: string(model.OpIncr), Key: args[1]}, true
	case cmd == "SET" && len(args) >= 3:
		return setNXPX(args)
	case (cmd == "EVAL" || cmd == "EVALSHA") && len(args) >= 5:
		sha := strings.ToLower(args[1])
		if cmd == "EVAL" {
			sha = scriptSHA(args[1])
		}
		sc := knownScripts[sha]
		switch {
		case args[2] != "1":
			return history.Payload{}, false
		case sc == deleteScript:
			return history.Payload{Kind: string(model.OpDelIfEqual), Key: args[3], Value: args[4]}, true
		case (sc == touchScript || sc == touchWithSetNXScript) && len(args) >= 6:
			// The set branch of touch-with-setnx is not an expiring-key
			// operation: a history using it fails P3 there (no scenario
			// here uses WithSetNXOnExtend).
			return history.Payload{Kind: string(model.OpPExpireIfEqual), Key: args[3], Value: args[4],
				TTL: millis(args[5])}, true
		}
	}
	return history.Payload{}, false
}

// setNXPX reads SET key value with exactly the options NX and PX ms.
func setNXPX(args []string) (history.Payload, bool) {
	var nx, px bool
	var ttl time.Duration
	for i := 3; i < len(args); i++ {
		switch strings.ToUpper(args[i]) {
		case "NX":
			nx = true
		case "PX":
			if i+1 < len(args) {
				px, ttl = true, millis(args[i+1])
				i++
			}
		default:
			return history.Payload{}, false
		}
	}
	if !nx || !px {
		return history.Payload{}, false
	}
	return history.Payload{Kind: string(model.OpSetNXPX), Key: args[1], Value: args[2], TTL: ttl}, true
}

// millis reads a millisecond count (0 if it is not one).
func millis(s string) time.Duration {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 1<<40 {
		return 0
	}
	return time.Duration(n) * time.Millisecond
}

// response is the expiring-key reply to in, read from the server's RESP
// reply r, at clock (the server's clock reading when it ran the command).
// An error reply is bad_request (refused without effect), except INCR's
// not-an-integer.
func response(in history.Payload, r reply, clock time.Duration) history.Payload {
	out := history.Payload{Kind: in.Kind + "_reply", Clock: clock}
	if r.kind == '-' {
		out.Err = string(model.KeyBadRequest)
		if in.Kind == string(model.OpIncr) && r.str == errNotInteger {
			out.Err = string(model.KeyNotInteger)
		}
		return out
	}
	switch model.KeyOp(in.Kind) {
	case model.OpSetNXPX:
		out.OK = r.kind == '+'
	case model.OpGet:
		out.OK, out.Value = !r.null, r.str
	case model.OpDelIfEqual, model.OpPExpireIfEqual:
		out.OK = r.kind == ':' && r.n == 1
	case model.OpIncr:
		out.OK, out.Revision = true, r.n
	}
	return out
}

// epoch is where the server's clock readings count from: the instant a
// testing/synctest bubble starts (midnight UTC, 2000-01-01), so that a
// reading is also the true time since the start of the run while the
// server's clock neither drifts nor steps.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// clockReading is the server's clock at now, as a duration since epoch.
func clockReading(now time.Time) time.Duration { return now.Sub(epoch) }
