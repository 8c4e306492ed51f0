package model

import (
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// Spec is a sequential specification: the porcupine model and the reason
// behind each of its verdicts.
type Spec struct {
	// Name identifies the specification, as a --spec flag would name it.
	Name  string
	Model porcupine.Model
	// Explain says why the specification rejects the operation (input,
	// output) in state, a state reached through Model, or returns "" if the
	// operation is legal there: the reason behind Step's verdict, for
	// evidence.
	Explain func(state, input, output any) string
	// Replay, if not nil, returns a Replayer of the model: a cheaper way
	// to walk one partition in one order, with Model.Step's verdicts.
	Replay func() Replayer
	// Key, if not nil, is what Model.Partition groups operations by, read
	// from an operation's input: a partition holds one key's operations in
	// their order, the partitions in sorted key order (partitionedBy). A
	// checker can then partition a history without building porcupine
	// operations. Nil when the partitions are not by a key (Lessor).
	Key func(input any) string
}

// partitionedBy sets m's Partition and PartitionEvent to group operations
// by key, read from their inputs, and returns m.
func partitionedBy(m porcupine.Model, key func(input any) string) porcupine.Model {
	m.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
		return groupBy(ops, func(op porcupine.Operation) string { return key(op.Input) })
	}
	m.PartitionEvent = func(events []porcupine.Event) [][]porcupine.Event { return partitionEvents(events, key) }
	return m
}

// partitionEvents groups events by the key of their call; a return goes
// with its call.
func partitionEvents(events []porcupine.Event, key func(call any) string) [][]porcupine.Event {
	keys := make(map[int]string) // event id -> key of its call; looked up, never iterated
	for _, e := range events {
		if e.Kind == porcupine.CallEvent {
			keys[e.Id] = key(e.Value)
		}
	}
	return groupBy(events, func(e porcupine.Event) string { return keys[e.Id] })
}

// groupBy splits xs by key, keeping their order within a group, with groups
// in sorted key order so that partitions are the same on every run.
func groupBy[T any](xs []T, key func(T) string) [][]T {
	group := make([]int, len(xs)) // xs[i] goes to group[i]
	index := make(map[string]int)
	var keys []string
	var sizes []int
	for i, x := range xs {
		k := key(x)
		g, ok := index[k]
		if !ok {
			g = len(keys)
			index[k] = g
			keys, sizes = append(keys, k), append(sizes, 0)
		}
		group[i] = g
		sizes[g]++
	}
	groups := make([][]T, len(keys))
	for g, n := range sizes {
		groups[g] = make([]T, 0, n)
	}
	for i, x := range xs {
		groups[group[i]] = append(groups[group[i]], x)
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	out := make([][]T, len(order))
	for i, g := range order {
		out[i] = groups[g]
	}
	return out
}

// fnv is a word-wise variant of FNV-1a: a deterministic, cheap hash for
// porcupine's state cache.
type fnv uint64

const (
	fnvOffset fnv = 14695981039346656037
	fnvPrime  fnv = 1099511628211
)

// u64 mixes in one word: a multiply per word, not per byte.
func (h fnv) u64(v uint64) fnv {
	h = (h ^ fnv(v)) * fnvPrime
	return h ^ h>>29
}

// str mixes in a string, eight bytes at a time, and its length.
func (h fnv) str(s string) fnv {
	for len(s) >= 8 {
		h = h.u64(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
		s = s[8:]
	}
	var tail uint64
	for i := 0; i < len(s); i++ {
		tail |= uint64(s[i]) << (8 * i)
	}
	return h.u64(tail).u64(uint64(len(s)))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (s leaseState) hash() uint64 {
	h := fnvOffset.str(s.holder).u64(s.token).u64(uint64(s.ttl)).u64(uint64(s.expiresAt))
	h = h.u64(b2u(s.revoked)).u64(s.maxToken).str(s.ckptState).u64(s.ckptToken).u64(s.ckptSeq)
	return uint64(h.u64(s.incarnation).u64(uint64(s.lastG)))
}

func (s registerState) hash() uint64 {
	h := fnvOffset.u64(s.highest)
	for _, c := range s.cells {
		h = h.str(c.key).u64(c.token).str(c.value)
	}
	return uint64(h)
}
