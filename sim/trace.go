package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"strconv"
)

// RecordKind says what a trace record describes.
type RecordKind uint8

// The kinds of trace record.
const (
	RecSeed      RecordKind = iota + 1 // a derived seed: A=seed, B=fnv(component)
	RecBoot                            // a node (re)started: A=incarnation
	RecSend                            // a message left Node for Peer: A=message id, B=digest of its contents (0: none)
	RecDeliver                         // a message reached Node from Peer: A=message id
	RecDrop                            // a message was lost: A=message id, B=DropReason
	RecDuplicate                       // the network made a second copy: A=message id
	RecTimer                           // a timer fired on Node (Node=-1: a world call): A=timer slot
	RecFault                           // a fault acted on Node (and Peer): A=FaultKind, B=value
	RecFailpoint                       // Node reached a failpoint: A=fnv(name), B=FailAction taken (0: none)
	RecMark                            // a host folded an event of its own into the trace (Mark): A=what, B=digest
)

var recordKindNames = [...]string{
	RecSeed: "seed", RecBoot: "boot", RecSend: "send", RecDeliver: "deliver", RecDrop: "drop",
	RecDuplicate: "duplicate", RecTimer: "timer", RecFault: "fault", RecFailpoint: "failpoint", RecMark: "mark",
}

// String returns the kind's name as it appears in JSON-lines traces.
func (k RecordKind) String() string {
	if int(k) < len(recordKindNames) && recordKindNames[k] != "" {
		return recordKindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Record is one compact trace entry. Node and Peer are node ids (-1: none).
type Record struct {
	At   Time
	Kind RecordKind
	Node int32
	Peer int32
	A, B uint64
}

// TraceConfig controls what the trace keeps besides its running hash.
type TraceConfig struct {
	// Keep is how many of the most recent records stay in memory. Zero means
	// DefaultTraceKeep; a negative value keeps none. The hash always covers
	// every record.
	Keep int
	// Writer, when set, receives every record as one JSON object per line.
	Writer io.Writer
}

// DefaultTraceKeep is how many recent records a trace keeps in memory.
const DefaultTraceKeep = 4096

// Trace is the hashed log of every event of a run. Its memory stays bounded:
// it keeps a ring of recent records and, optionally, streams all of them.
type Trace struct {
	hash   uint64
	count  uint64
	ring   []Record // Keep slots, filled in turn
	next   int      // ring write position
	out    *bufio.Writer
	err    error
	names  func(int32) string
	quoted [][]byte // JSON-quoted node names, by node id
	line   []byte   // the JSON line being written
}

const traceHashSeed = 0x243f6a8885a308d3

func newTrace(cfg TraceConfig, names func(int32) string) Trace {
	keep := cfg.Keep
	if keep == 0 {
		keep = DefaultTraceKeep
	}
	t := Trace{hash: traceHashSeed, names: names}
	if keep > 0 {
		t.ring = make([]Record, keep)
	}
	if cfg.Writer != nil {
		t.out = bufio.NewWriterSize(cfg.Writer, 64<<10)
	}
	return t
}

// mum is the 128-bit multiply-and-fold mixer used by wyhash.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// add hashes a record and keeps it. It takes the record's fields rather
// than a Record and stores them one by one: building a Record on the stack
// and copying it into the ring stalls on store-to-load forwarding, a
// measurable cost on a path every event takes.
func (t *Trace) add(at Time, kind RecordKind, node, peer int32, a, b uint64) {
	// Two independent wyhash-style mixes of the record, folded into the
	// running hash: only one multiply is on the hash's dependency chain.
	ids := uint64(kind) | uint64(uint32(node))<<8 | uint64(uint32(peer))<<40
	rec := mum(a^0x8ebc6af09c88c6e3, b^0x589965cc75374cc3) ^ ids
	t.hash = mum(t.hash^uint64(at)^0xa0761d6478bd642f, rec^0xe7037ed1a0b428db)
	t.count++
	if len(t.ring) > 0 {
		r := &t.ring[t.next]
		r.At, r.Kind, r.Node, r.Peer, r.A, r.B = at, kind, node, peer, a, b
		t.next++
		if t.next == len(t.ring) {
			t.next = 0
		}
	}
	if t.out != nil && t.err == nil {
		t.write(Record{At: at, Kind: kind, Node: node, Peer: peer, A: a, B: b})
	}
}

// Hash returns the running hash of every record so far.
func (t *Trace) Hash() uint64 { return t.hash }

// HashString returns the hash as 16 hex digits, as printed in results.
func (t *Trace) HashString() string { return fmt.Sprintf("%016x", t.hash) }

// Len returns how many records the trace has seen.
func (t *Trace) Len() uint64 { return t.count }

// Recent returns the records still kept in memory, oldest first: the last
// Keep records, or every record if there were fewer.
func (t *Trace) Recent() []Record {
	if t.count <= uint64(len(t.ring)) {
		return append([]Record(nil), t.ring[:t.count]...)
	}
	out := make([]Record, 0, len(t.ring))
	out = append(out, t.ring[t.next:]...)
	return append(out, t.ring[:t.next]...)
}

// Err returns the first error met while streaming the trace, if any.
func (t *Trace) Err() error { return t.err }

// flush writes buffered JSON lines out.
func (t *Trace) flush() error {
	if t.out != nil && t.err == nil {
		if err := t.out.Flush(); err != nil {
			t.err = fmt.Errorf("sim: flush trace: %w", err)
		}
	}
	return t.err
}

// write streams r as one JSON object on a line:
//
//	{"t":1500000,"ev":"send","node":"a","peer":"b","a":7}
//
// t is true time in nanoseconds and ev the record kind; node and peer are
// node names, and they, a and b are left out when unset (or zero). The line
// is built by hand, without reflection or allocation, because a streamed
// trace writes one per event.
func (t *Trace) write(r Record) {
	b := append(t.line[:0], `{"t":`...)
	b = strconv.AppendInt(b, int64(r.At), 10)
	b = append(b, `,"ev":"`...)
	b = append(b, r.Kind.String()...) // kind names need no escaping
	b = append(b, '"')
	b = t.appendName(b, `,"node":`, r.Node)
	b = t.appendName(b, `,"peer":`, r.Peer)
	if r.A != 0 {
		b = strconv.AppendUint(append(b, `,"a":`...), r.A, 10)
	}
	if r.B != 0 {
		b = strconv.AppendUint(append(b, `,"b":`...), r.B, 10)
	}
	b = append(b, "}\n"...)
	t.line = b
	if _, err := t.out.Write(b); err != nil {
		t.err = fmt.Errorf("sim: write trace record %d: %w", t.count, err)
	}
}

// appendName appends field and the JSON string of node id's name, unless
// there is no node (id < 0) or its name is empty. Quoted names are cached:
// a node's name never changes.
func (t *Trace) appendName(b []byte, field string, id int32) []byte {
	if id < 0 {
		return b
	}
	for int(id) >= len(t.quoted) {
		t.quoted = append(t.quoted, nil)
	}
	q := t.quoted[id]
	if q == nil {
		var err error
		if q, err = json.Marshal(t.names(id)); err != nil {
			panic("sim: invariant name-marshals: a string always marshals to JSON: " + err.Error())
		}
		t.quoted[id] = q
	}
	if len(q) == 2 { // ""
		return b
	}
	return append(append(b, field...), q...)
}
