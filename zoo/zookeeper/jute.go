package zookeeper

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ZooKeeper's wire format is jute (org.apache.jute, BinaryOutputArchive):
// int as 4 bytes and long as 8 bytes, big-endian; boolean as one byte;
// a string as an int length and its UTF-8 bytes; a buffer as an int length
// and its bytes, length −1 for null; a vector as an int count and its
// elements, −1 for null. Every packet travels with a 4-byte big-endian
// length in front (ClientCnxnSocketNIO, NIOServerCnxn). This file is the
// simulated server's own reader and writer of that format.

// maxPacket bounds a packet's length: ZooKeeper's jute.maxbuffer default
// (0xfffff bytes, a little under 1 MiB).
const maxPacket = 0xfffff

// errShort is a packet that ended before the field being read.
var errShort = errors.New("zookeeper: packet too short")

// decoder reads jute fields from one packet. The first error sticks: the
// fields after it read as zero values, and err says what went wrong.
type decoder struct {
	b   []byte
	err error
}

// need returns the next n bytes, or nil (and sets err) when there are
// fewer.
func (d *decoder) need(n int, field string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = fmt.Errorf("%s: %w", field, errShort)
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) int32(field string) int32 {
	if b := d.need(4, field); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (d *decoder) int64(field string) int64 {
	if b := d.need(8, field); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

func (d *decoder) bool(field string) bool {
	if b := d.need(1, field); b != nil {
		return b[0] != 0
	}
	return false
}

// buffer reads a length-prefixed byte string (nil for length −1).
func (d *decoder) buffer(field string) []byte {
	n := d.int32(field)
	if n == -1 || d.err != nil {
		return nil
	}
	b := d.need(int(n), field)
	return append([]byte(nil), b...)
}

func (d *decoder) string(field string) string { return string(d.buffer(field)) }

// strings reads a vector of strings (nil for count −1).
func (d *decoder) strings(field string) []string {
	n := d.int32(field)
	if n == -1 || d.err != nil {
		return nil
	}
	if n < 0 || int(n) > len(d.b)/4 {
		d.err = fmt.Errorf("%s: vector of %d: %w", field, n, errShort)
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.string(field))
	}
	return out
}

// encoder appends jute fields to a packet.
type encoder struct{ b []byte }

func (e *encoder) int32(v int32) { e.b = binary.BigEndian.AppendUint32(e.b, uint32(v)) }
func (e *encoder) int64(v int64) { e.b = binary.BigEndian.AppendUint64(e.b, uint64(v)) }

func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *encoder) buffer(v []byte) {
	e.int32(int32(len(v)))
	e.b = append(e.b, v...)
}

func (e *encoder) string(v string) {
	e.int32(int32(len(v)))
	e.b = append(e.b, v...)
}

func (e *encoder) strings(v []string) {
	e.int32(int32(len(v)))
	for _, s := range v {
		e.string(s)
	}
}

// frame returns the packet with its 4-byte length in front.
func frame(body []byte) []byte {
	out := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	return append(out, body...)
}
