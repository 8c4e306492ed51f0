package redsync

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The RESP2 wire format, as much of it as a Redis server needs: requests
// are arrays of bulk strings (what redigo sends), replies are simple
// strings, errors, integers, bulk strings and the null bulk string.

// errProtocol is a request the server cannot parse.
var errProtocol = errors.New("redis protocol error")

// maxBulk bounds a request's bulk string (Redis's proto-max-bulk-len is
// 512 MB; a lock's values are tiny).
const maxBulk = 1 << 20

// readCommand reads one request: an array of bulk strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	if len(line) == 0 || line[0] != '*' {
		return nil, fmt.Errorf("%w: expected '*', got %q", errProtocol, line)
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 1 || n > 1024 {
		return nil, fmt.Errorf("%w: invalid multibulk length %q", errProtocol, line)
	}
	args := make([]string, n)
	for i := range args {
		line, err := readLine(r)
		if err != nil {
			return nil, err
		}
		if len(line) == 0 || line[0] != '$' {
			return nil, fmt.Errorf("%w: expected '$', got %q", errProtocol, line)
		}
		size, err := strconv.Atoi(line[1:])
		if err != nil || size < 0 || size > maxBulk {
			return nil, fmt.Errorf("%w: invalid bulk length %q", errProtocol, line)
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		if buf[size] != '\r' || buf[size+1] != '\n' {
			return nil, fmt.Errorf("%w: bulk string not terminated by CRLF", errProtocol)
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}

// readLine reads a CRLF-terminated line without its terminator.
func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return "", fmt.Errorf("%w: line not terminated by CRLF", errProtocol)
	}
	return line[:len(line)-2], nil
}

// reply is one RESP reply.
type reply struct {
	kind byte // '+', '-', ':', '$'
	str  string
	n    int64
	null bool // '$' only: the null bulk string
}

func simple(s string) reply     { return reply{kind: '+', str: s} }
func errorReply(s string) reply { return reply{kind: '-', str: s} }
func integer(n int64) reply     { return reply{kind: ':', n: n} }
func bulk(s string) reply       { return reply{kind: '$', str: s} }
func nullBulk() reply           { return reply{kind: '$', null: true} }

// ok is the +OK reply.
var ok = simple("OK")

// append appends the reply's encoding to b.
func (r reply) append(b []byte) []byte {
	switch r.kind {
	case ':':
		b = append(b, ':')
		b = strconv.AppendInt(b, r.n, 10)
	case '$':
		if r.null {
			return append(b, "$-1\r\n"...)
		}
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(r.str)), 10)
		b = append(b, "\r\n"...)
		b = append(b, r.str...)
	default:
		b = append(b, r.kind)
		b = append(b, r.str...)
	}
	return append(b, "\r\n"...)
}

// String renders the reply for messages and tests.
func (r reply) String() string {
	switch {
	case r.kind == ':':
		return strconv.FormatInt(r.n, 10)
	case r.null:
		return "(nil)"
	case r.kind == '-':
		return "(error) " + r.str
	}
	return strconv.Quote(r.str)
}
