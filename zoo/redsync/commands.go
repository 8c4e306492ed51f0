package redsync

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// redisState is what one life of the simulated Redis holds: the keyspace
// and the script cache (which, as in Redis, a restart empties: SCRIPT
// LOAD and EVAL fill it, EVALSHA of a script not in it is NOSCRIPT).
type redisState struct {
	ks     *keyspace
	loaded map[string]bool // script SHA1s in the cache; looked up only
}

func newRedisState(ks *keyspace) *redisState {
	return &redisState{ks: ks, loaded: make(map[string]bool)}
}

// The error replies, worded as Redis words them.
const (
	errSyntax     = "ERR syntax error"
	errNotInteger = "ERR value is not an integer or out of range"
	errNoScript   = "NOSCRIPT No matching script. Please use EVAL."
)

func errArity(cmd string) reply {
	return errorReply(fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(cmd)))
}

// exec runs one command at now (the server's clock) and returns its reply.
// Callers serialise commands, as Redis's single thread does.
func (s *redisState) exec(args []string, now time.Time) reply {
	cmd := strings.ToUpper(args[0])
	switch cmd {
	case "PING":
		if len(args) == 2 {
			return bulk(args[1])
		}
		return simple("PONG")
	case "SELECT":
		if len(args) != 2 || args[1] != "0" {
			return errorReply("ERR DB index is out of range")
		}
		return ok
	case "CLIENT":
		return s.client(args)
	case "GET":
		if len(args) != 2 {
			return errArity(cmd)
		}
		if e, found := s.ks.lookup(args[1], now); found {
			return bulk(e.value)
		}
		return nullBulk()
	case "SET":
		return s.set(args, now)
	case "DEL":
		if len(args) < 2 {
			return errArity(cmd)
		}
		var n int64
		for _, k := range args[1:] {
			if _, found := s.ks.lookup(k, now); found {
				s.ks.del(k)
				n++
			}
		}
		return integer(n)
	case "PTTL":
		if len(args) != 2 {
			return errArity(cmd)
		}
		e, found := s.ks.lookup(args[1], now)
		switch {
		case !found:
			return integer(-2)
		case e.expireAt.IsZero():
			return integer(-1)
		}
		return integer(int64((e.expireAt.Sub(now) + time.Millisecond - 1) / time.Millisecond))
	case "PEXPIRE":
		if len(args) != 3 {
			return errArity(cmd)
		}
		return s.pexpire(args[1], args[2], now)
	case "INCR":
		if len(args) != 2 {
			return errArity(cmd)
		}
		return s.incr(args[1], now)
	case "EVAL", "EVALSHA":
		return s.eval(cmd, args, now)
	case "SCRIPT":
		return s.scriptCmd(args)
	}
	var rest []string
	for _, a := range args[1:] {
		rest = append(rest, "'"+a+"'")
	}
	return errorReply(fmt.Sprintf("ERR unknown command '%s', with args beginning with: %s", args[0], strings.Join(rest, " ")))
}

// client answers CLIENT SETNAME/GETNAME/SETINFO/ID; the connection's
// name itself is kept by the connection (server.go).
func (s *redisState) client(args []string) reply {
	if len(args) < 2 {
		return errArity("client")
	}
	switch strings.ToUpper(args[1]) {
	case "SETNAME":
		if len(args) != 3 || strings.ContainsAny(args[2], " \n") {
			return errorReply("ERR Client names cannot contain spaces, newlines or special characters.")
		}
		return ok
	case "SETINFO":
		return ok
	}
	return errorReply("ERR unknown subcommand '" + args[1] + "'. Try CLIENT HELP.")
}

// set runs SET key value [NX|XX] [PX ms|EX s].
func (s *redisState) set(args []string, now time.Time) reply {
	if len(args) < 3 {
		return errArity("set")
	}
	var nx, xx bool
	var ttl time.Duration
	for i := 3; i < len(args); i++ {
		switch opt := strings.ToUpper(args[i]); {
		case opt == "NX" && !xx:
			nx = true
		case opt == "XX" && !nx:
			xx = true
		case (opt == "PX" || opt == "EX") && ttl == 0 && i+1 < len(args):
			n, err := strconv.ParseInt(args[i+1], 10, 64)
			if err != nil {
				return errorReply(errNotInteger)
			}
			if n <= 0 || n > 1<<40 {
				return errorReply("ERR invalid expire time in 'set' command")
			}
			ttl = time.Duration(n) * time.Millisecond
			if opt == "EX" {
				ttl *= 1000
			}
			i++
		default:
			return errorReply(errSyntax)
		}
	}
	key := args[1]
	_, found := s.ks.lookup(key, now)
	if nx && found || xx && !found {
		return nullBulk()
	}
	e := entry{value: args[2]}
	if ttl > 0 {
		e.expireAt = now.Add(ttl)
	}
	s.ks.put(key, e)
	return ok
}

// pexpire runs PEXPIRE key ms: 1 if the key exists (a non-positive
// timeout deletes it, as in Redis), 0 if not.
func (s *redisState) pexpire(key, ms string, now time.Time) reply {
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || n > 1<<40 {
		return errorReply(errNotInteger)
	}
	e, found := s.ks.lookup(key, now)
	switch {
	case !found:
		return integer(0)
	case n <= 0:
		s.ks.del(key)
		return integer(1)
	}
	e.expireAt = now.Add(time.Duration(n) * time.Millisecond)
	s.ks.put(key, e)
	return integer(1)
}

// incr runs INCR key: an absent key counts from 0 with no expiry; a
// present one keeps its expiry.
func (s *redisState) incr(key string, now time.Time) reply {
	e, found := s.ks.lookup(key, now)
	var v int64
	if found {
		n, err := strconv.ParseInt(e.value, 10, 64)
		if err != nil || n == 1<<63-1 {
			return errorReply(errNotInteger)
		}
		v = n
	}
	e.value = strconv.FormatInt(v+1, 10)
	s.ks.put(key, e)
	return integer(v + 1)
}

// eval runs EVAL body numkeys key... arg... or EVALSHA sha numkeys ...:
// a script known by its SHA1 runs natively; EVALSHA of a script not in
// the cache is NOSCRIPT; any other script is refused.
func (s *redisState) eval(cmd string, args []string, now time.Time) reply {
	if len(args) < 3 {
		return errArity(cmd)
	}
	sha := strings.ToLower(args[1])
	if cmd == "EVAL" {
		sha = scriptSHA(args[1])
	}
	sc, known := knownScripts[sha]
	switch {
	case cmd == "EVALSHA" && !s.loaded[sha]:
		return errorReply(errNoScript)
	case !known:
		return errorReply("ERR leasesim's simulated Redis runs no Lua: unknown script " + sha)
	}
	s.loaded[sha] = true
	numkeys, err := strconv.Atoi(args[2])
	switch {
	case err != nil:
		return errorReply(errNotInteger)
	case numkeys < 0 || numkeys > len(args)-3:
		return errorReply("ERR Number of keys can't be greater than number of args")
	}
	keys, argv := args[3:3+numkeys], args[3+numkeys:]
	return s.runScript(sc, keys, argv, now)
}

// runScript is the native body of a known script. A missing KEYS[i] or
// ARGV[i] is nil in Lua, which makes redis.call fail: so here.
func (s *redisState) runScript(sc script, keys, argv []string, now time.Time) reply {
	want := 2
	if sc == deleteScript {
		want = 1
	}
	if len(keys) < 1 || len(argv) < want {
		return errorReply("ERR Error running script (call to " + sc.String() + "): Lua redis() command arguments must be strings or integers")
	}
	key, value := keys[0], argv[0]
	e, found := s.ks.lookup(key, now)
	switch sc {
	case deleteScript:
		switch {
		case found && e.value == value:
			s.ks.del(key)
			return integer(1)
		case !found:
			return integer(-1)
		}
		return integer(0)
	case touchScript:
		if found && e.value == value {
			return s.pexpire(key, argv[1], now)
		}
		return integer(0)
	default: // touchWithSetNXScript
		if found && e.value == value {
			return s.pexpire(key, argv[1], now)
		}
		if r := s.set([]string{"SET", key, value, "PX", argv[1], "NX"}, now); r.kind == '+' {
			return integer(1)
		} else if r.kind == '-' {
			return r
		}
		return integer(0)
	}
}

// scriptCmd runs SCRIPT LOAD body | EXISTS sha... | FLUSH.
func (s *redisState) scriptCmd(args []string) reply {
	if len(args) < 2 {
		return errArity("script")
	}
	switch strings.ToUpper(args[1]) {
	case "LOAD":
		if len(args) != 3 {
			return errArity("script|load")
		}
		sha := scriptSHA(args[2])
		if _, known := knownScripts[sha]; !known {
			return errorReply("ERR leasesim's simulated Redis runs no Lua: unknown script " + sha)
		}
		s.loaded[sha] = true
		return bulk(sha)
	case "FLUSH":
		clear(s.loaded)
		return ok
	}
	return errorReply("ERR unknown subcommand '" + args[1] + "'. Try SCRIPT HELP.")
}
