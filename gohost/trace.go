package gohost

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// Event is one entry of a run's trace: something the host did (a delivery,
// a fault, a node's lifecycle) or something a node recorded (a belief, a
// write). The trace hash covers every field.
type Event struct {
	// Seq is the event's index in the trace.
	Seq int
	// At is true time since the start of the run.
	At time.Duration
	// Kind names what happened ("deliver", "connect", "crash", "believe", …).
	Kind string
	// Node is the node it happened to or on; Peer the other end, if any.
	Node, Peer string
	// Detail says more, in words.
	Detail string
	// Digest is a digest of the event's payload (the bytes delivered), or 0.
	Digest uint64
}

// String formats the event for logs and divergence reports.
func (e Event) String() string {
	s := fmt.Sprintf("#%d %v %s %s", e.Seq, e.At, e.Kind, e.Node)
	if e.Peer != "" {
		s += " -> " + e.Peer
	}
	if e.Detail != "" {
		s += " " + e.Detail
	}
	if e.Digest != 0 {
		s += fmt.Sprintf(" digest=%016x", e.Digest)
	}
	return s
}

// hash is the event's digest, mixed from every field.
func (e Event) hash() uint64 {
	return sim.Digest(uint64(e.Seq), uint64(e.At), sim.DigestString(e.Kind), sim.DigestString(e.Node),
		sim.DigestString(e.Peer), sim.DigestString(e.Detail), e.Digest)
}

// traceHash folds the events' digests into one hash.
func traceHash(events []Event) uint64 {
	h := sim.Digest(uint64(len(events)))
	for _, e := range events {
		h = sim.Digest(h, e.hash())
	}
	return h
}

// firstDifference returns the index of the first event at which a and b
// differ, or -1 when they are the same.
func firstDifference(a, b []Event) int {
	for i := range min(len(a), len(b)) {
		if a[i].hash() != b[i].hash() {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
