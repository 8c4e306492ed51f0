package etcdraft

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// cmdKind is the kind of a log entry's command.
type cmdKind uint8

const (
	cmdGrant cmdKind = iota + 1
	cmdRevoke
	cmdCreate
	cmdCheckpoint
	// cmdCheckpointTxn puts key=value, attached to no lease, if guard's create
	// revision is token: a task checkpoint.
	cmdCheckpointTxn
)

// command is a lessor change proposed through the log. Client and ID name
// the request it answers ("" for the leader's own: an expiry's revoke, a
// checkpoint), and proposer the member that proposed it, the one that
// answers it: as etcd's proposer waits on its own proposal's id, a request
// that two members proposed (a client sent it again) is answered by each
// from its own entry.
type command struct {
	kind     cmdKind
	client   string
	id       uint64
	proposer uint64 // raft id
	key      string
	value    string
	lease    int64
	ttl      time.Duration
	// checkpoints are a checkpoint's remaining TTLs by lease (0: the
	// full TTL, after a keepalive).
	checkpoints []checkpoint
	// guard and token are a fenced put's condition (encoded only for one).
	guard string
	token int64
}

type checkpoint struct {
	lease     int64
	remaining time.Duration
}

// encode appends the command's bytes to b.
func (c *command) encode(b []byte) []byte {
	b = append(b, byte(c.kind))
	b = appendString(b, c.client)
	b = binary.AppendUvarint(b, c.id)
	b = binary.AppendUvarint(b, c.proposer)
	b = appendString(b, c.key)
	b = appendString(b, c.value)
	b = binary.AppendVarint(b, c.lease)
	b = binary.AppendVarint(b, int64(c.ttl))
	b = binary.AppendUvarint(b, uint64(len(c.checkpoints)))
	for _, cp := range c.checkpoints {
		b = binary.AppendVarint(b, cp.lease)
		b = binary.AppendVarint(b, int64(cp.remaining))
	}
	if c.kind == cmdCheckpointTxn {
		b = appendString(b, c.guard)
		b = binary.AppendVarint(b, c.token)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// errShort is a command cut short.
var errShort = errors.New("command cut short")

// decoder reads what encode wrote.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = errShort, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err, d.b = errShort, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err, d.b = errShort, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// decodeCommand reads a command encode wrote.
func decodeCommand(b []byte) (command, error) {
	if len(b) == 0 {
		return command{}, errShort
	}
	c := command{kind: cmdKind(b[0])}
	d := decoder{b: b[1:]}
	c.client, c.id, c.proposer, c.key, c.value = d.string(), d.uvarint(), d.uvarint(), d.string(), d.string()
	c.lease, c.ttl = d.varint(), time.Duration(d.varint())
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return command{}, fmt.Errorf("decode command: %d checkpoints in %d bytes: %w", n, len(d.b), errShort)
	}
	for range n {
		c.checkpoints = append(c.checkpoints, checkpoint{lease: d.varint(), remaining: time.Duration(d.varint())})
	}
	if c.kind == cmdCheckpointTxn {
		c.guard, c.token = d.string(), d.varint()
	}
	if d.err != nil {
		return command{}, fmt.Errorf("decode command: %w", d.err)
	}
	return c, nil
}
