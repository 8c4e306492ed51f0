package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/lease"
)

// Explain says why the specification rejects the operation (in, out) in
// state, a state reached through LeaseStore(cfg) or FencedRegister(), or
// returns "" if the operation is legal there. It is the reason behind Step's
// verdict, for evidence.
func Explain(cfg lease.Config, state any, in, out lease.Message) string {
	switch s := state.(type) {
	case leaseState:
		_, why := leaseSpec{cfg: cfg}.step(s, in, out)
		return why
	case registerState:
		_, why := registerStep(s, in, out)
		return why
	}
	panic(fmt.Sprintf("model: Explain: %T is not a state of package model", state))
}

// message returns an operation's input or output. Anything else is a
// programmer error.
func message(v any) lease.Message {
	m, ok := v.(lease.Message)
	if !ok {
		panic(fmt.Sprintf("model: operation-is-a-message: input or output is %T, not lease.Message", v))
	}
	return m
}

// partitionByResource groups operations by the resource of their input,
// keeping their order, with resources in sorted order.
func partitionByResource(ops []porcupine.Operation) [][]porcupine.Operation {
	return groupBy(ops, func(op porcupine.Operation) string { return message(op.Input).Resource })
}

// partitionEventsByResource groups events by the resource of their call; a
// return goes with its call.
func partitionEventsByResource(events []porcupine.Event) [][]porcupine.Event {
	resource := make(map[int]string) // event id -> resource of its call
	for _, e := range events {
		if e.Kind == porcupine.CallEvent {
			resource[e.Id] = message(e.Value).Resource
		}
	}
	return groupBy(events, func(e porcupine.Event) string { return resource[e.Id] })
}

// groupBy splits xs by key, keeping their order within a group, with groups
// in sorted key order so that partitions are the same on every run.
func groupBy[T any](xs []T, key func(T) string) [][]T {
	index := make(map[string]int)
	var keys []string
	var groups [][]T
	for _, x := range xs {
		k := key(x)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			keys = append(keys, k)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], x)
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	out := make([][]T, len(groups))
	for i, j := range order {
		out[i] = groups[j]
	}
	return out
}

// fnv is FNV-1a, 64 bits: a deterministic hash for porcupine's state cache.
type fnv uint64

const (
	fnvOffset fnv = 14695981039346656037
	fnvPrime  fnv = 1099511628211
)

func (h fnv) u64(v uint64) fnv {
	for range 8 {
		h = (h ^ fnv(v&0xff)) * fnvPrime
		v >>= 8
	}
	return h
}

func (h fnv) str(s string) fnv {
	for i := 0; i < len(s); i++ {
		h = (h ^ fnv(s[i])) * fnvPrime
	}
	return h.u64(uint64(len(s)))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (s leaseState) hash() uint64 {
	h := fnvOffset.str(string(s.holder)).u64(s.token).u64(uint64(s.ttl)).u64(uint64(s.expiresAt))
	h = h.u64(b2u(s.revoked)).u64(s.maxToken).str(s.ckptState).u64(s.ckptToken).u64(s.ckptReqID)
	return uint64(h.u64(uint64(s.lastG)))
}

func (s registerState) hash() uint64 {
	h := fnvOffset.u64(s.highest)
	for _, c := range s.cells {
		h = h.str(c.key).u64(c.token).str(c.value)
	}
	return uint64(h)
}
