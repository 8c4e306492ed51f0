package redsync

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gomodule/redigo/redis"
)

// ClientOptions are the Redis client's timeouts (redigo's dial options).
type ClientOptions struct {
	// ConnectTimeout bounds a dial, ReadTimeout and WriteTimeout every
	// command: redsync's redigo adapter calls Conn.Do without a context,
	// so these are what bound a command to a stalled server.
	ConnectTimeout, ReadTimeout, WriteTimeout time.Duration
}

// DefaultClientOptions are timeouts a redsync user would pick: a command
// fails after half a second without a reply.
var DefaultClientOptions = ClientOptions{ConnectTimeout: 500 * time.Millisecond, ReadTimeout: 500 * time.Millisecond,
	WriteTimeout: 500 * time.Millisecond}

// NewPool returns a redigo pool whose connections dial addr ("redis:6379")
// through the node's simulated network (redis.DialContextFunc(n.Dial)).
// With record set, every connection is a recording one (see recordingConn)
// naming server as the operations' server.
func NewPool(n Env, addr, server string, opts ClientOptions, record bool) *redis.Pool {
	return &redis.Pool{
		MaxIdle: 4,
		DialContext: func(ctx context.Context) (redis.Conn, error) {
			c, err := redis.DialContext(ctx, "tcp", addr, redis.DialContextFunc(n.Dial),
				redis.DialConnectTimeout(opts.ConnectTimeout), redis.DialReadTimeout(opts.ReadTimeout),
				redis.DialWriteTimeout(opts.WriteTimeout))
			if err != nil {
				return nil, fmt.Errorf("redis %s: %w", addr, err)
			}
			if !record {
				return c, nil
			}
			return &recordingConn{Conn: c, n: n, server: server}, nil
		},
	}
}

// recordingConn is a redigo connection that records the expiring-key
// commands it sends as operations (gohost.Node.Call before the command,
// Return when its reply arrives). The request's ref reaches the server in
// band: a CLIENT SETNAME <ref> pipelined before the command, in the same
// write (redigo flushes both at Do), which the simulated Redis reads as
// the name of the next command. redsync and redigo are unchanged; the
// wire carries one extra command per recorded one, which the server
// answers +OK, as Redis does.
type recordingConn struct {
	redis.Conn
	n      Env
	server string
}

// Do sends one command, recording it when it is one P3 judges.
func (c *recordingConn) Do(cmd string, args ...any) (any, error) {
	in, ok := request(commandArgs(cmd, args))
	if !ok {
		return c.Conn.Do(cmd, args...)
	}
	ref := c.n.Call(c.server, in)
	if ref.Client == "" { // an Env that records nothing (the benchmark's plain one)
		return c.Conn.Do(cmd, args...)
	}
	if err := c.Conn.Send("CLIENT", "SETNAME", ref.String()); err != nil {
		return nil, err
	}
	reply, err := c.Conn.Do(cmd, args...)
	var rerr redis.Error
	if err == nil || errors.As(err, &rerr) {
		c.n.Return(ref) // a reply came back (an error reply is a reply)
	}
	return reply, err
}

// commandArgs renders a redigo command as the strings it sends.
func commandArgs(cmd string, args []any) []string {
	out := make([]string, 0, len(args)+1)
	out = append(out, cmd)
	for _, a := range args {
		switch v := a.(type) {
		case string:
			out = append(out, v)
		case []byte:
			out = append(out, string(v))
		case int:
			out = append(out, strconv.Itoa(v))
		case int64:
			out = append(out, strconv.FormatInt(v, 10))
		default:
			out = append(out, fmt.Sprint(v))
		}
	}
	return out
}
