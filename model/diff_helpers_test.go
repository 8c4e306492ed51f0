package model

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The differential harness: random small concurrent histories of a
// specification, decided by plain porcupine (no partitions), by porcupine
// with the model's partitions (operations and events), and by a brute-force
// search over every order real time allows. Every decision must agree.

// opGen draws operations of one specification.
type opGen struct {
	spec Spec
	// input draws a request.
	input func(r *rand.Rand) any
	// key is the partition an input belongs to ("" for a model without
	// partitions).
	key func(in any) string
	// output draws a reply to in; now is the latest server clock reading
	// used so far, and state the state in is applied to (nil when
	// corrupting), so that a legal reply is likely among a few draws.
	output func(r *rand.Rand, in any, now int64, state any) (out any, clock int64)
	// setup, if not nil, is what every sequential execution begins with
	// (at server reading 0): operations legal from the initial state, so
	// that a specification whose operations need something opened first
	// (a session) gets histories that go somewhere.
	setup []pair
}

// pair is one operation's input and output.
type pair struct{ in, out any }

// sequential returns a random legal sequential execution of up to n
// operations: each reply is drawn until the specification accepts it.
func (g opGen) sequential(r *rand.Rand, n int) []pair {
	m := g.spec.Model
	state := m.Init()
	var now int64
	var out []pair
	for _, p := range g.setup {
		legal, next := m.Step(state, p.in, p.out)
		if !legal {
			panic("model: differential setup is not legal: " + m.DescribeOperation(p.in, p.out))
		}
		out, state = append(out, p), next
	}
	for range n {
		in := g.input(r)
		for range 40 {
			o, clock := g.output(r, in, now, state)
			if legal, next := m.Step(state, in, o); legal {
				out, state, now = append(out, pair{in, o}), next, max(now, clock)
				break
			}
		}
	}
	return out
}

// history lays a sequential execution out in time, each operation around
// its point, widened by up to widen on both sides so that neighbours
// overlap; some replies never return. With corrupt, one output is redrawn
// (which may or may not make the history illegal).
func (g opGen) history(r *rand.Rand, seq []pair, corrupt bool) []porcupine.Operation {
	const never = 1 << 40
	widen := r.Int64N(40)
	ops := make([]porcupine.Operation, len(seq))
	for i, p := range seq {
		at := int64(10 * (i + 1))
		ret := at + r.Int64N(widen+1)
		if r.IntN(12) == 0 {
			ret = never
		}
		ops[i] = porcupine.Operation{ClientId: i, Input: p.in, Output: p.out, Call: at - r.Int64N(widen+1), Return: ret}
	}
	if corrupt && len(ops) > 0 {
		i := r.IntN(len(ops))
		ops[i].Output, _ = g.output(r, ops[i].Input, r.Int64N(int64(10*len(ops)+10)), nil)
	}
	return ops
}

// bruteForce decides a history by trying every order real time allows.
func bruteForce(m porcupine.Model, ops []porcupine.Operation) porcupine.CheckResult {
	done := make([]bool, len(ops))
	var dfs func(state any, left int) bool
	dfs = func(state any, left int) bool {
		if left == 0 {
			return true
		}
		for j := range ops {
			if done[j] || !minimal(ops, done, j) {
				continue
			}
			if legal, next := m.Step(state, ops[j].Input, ops[j].Output); legal {
				done[j] = true
				found := dfs(next, left-1)
				done[j] = false
				if found {
					return true
				}
			}
		}
		return false
	}
	if dfs(m.Init(), len(ops)) {
		return porcupine.Ok
	}
	return porcupine.Illegal
}

// minimal reports whether no operation left returned before ops[j] was
// called.
func minimal(ops []porcupine.Operation, done []bool, j int) bool {
	for i := range ops {
		if !done[i] && i != j && ops[i].Return < ops[j].Call {
			return false
		}
	}
	return true
}

// events returns ops as call and return events in time order, calls
// before returns at equal times (porcupine's convention for operations).
func events(ops []porcupine.Operation) []porcupine.Event {
	type at struct {
		t   int64
		ret bool
		i   int
	}
	var ts []at
	for i, op := range ops {
		ts = append(ts, at{op.Call, false, i}, at{op.Return, true, i})
	}
	slices.SortStableFunc(ts, func(a, b at) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		return cmp.Compare(b2u(a.ret), b2u(b.ret))
	})
	out := make([]porcupine.Event, len(ts))
	for k, e := range ts {
		kind, v := porcupine.CallEvent, ops[e.i].Input
		if e.ret {
			kind, v = porcupine.ReturnEvent, ops[e.i].Output
		}
		out[k] = porcupine.Event{ClientId: ops[e.i].ClientId, Kind: kind, Value: v, Id: e.i}
	}
	return out
}

// counts are how many histories each verdict decided.
type counts struct{ ok, illegal int }

// differential checks histories of g, seeded by seed, and returns the
// verdict counts. Every history's sequential execution must be legal, and
// every decision procedure must agree.
func differential(t *testing.T, g opGen, seed uint64, histories, maxOps int) counts {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	whole := unpartitioned(g.spec.Model, g.key)
	var c counts
	for h := range histories {
		seq := g.sequential(r, 1+r.IntN(maxOps))
		require.NotEmpty(t, seq, "history %d: no legal operation drawn", h)
		ops := g.history(r, seq, r.IntN(2) == 0)
		verdict, agreed := decideEveryWay(t, g.spec.Model, whole, ops, fmt.Sprintf("seed %d history %d", seed, h))
		if !agreed {
			return c
		}
		c.add(verdict)
	}
	return c
}

func (c *counts) add(v porcupine.CheckResult) {
	if v == porcupine.Ok {
		c.ok++
	} else {
		c.illegal++
	}
}

// decideEveryWay decides ops by plain porcupine over whole (m without its
// partitions), by porcupine with m's partitions on operations and on
// events, and by a brute-force search, and reports the verdict and whether
// all four agree (asserting that they do, naming the history as name).
func decideEveryWay(t *testing.T, m, whole porcupine.Model, ops []porcupine.Operation, name string) (porcupine.CheckResult, bool) {
	t.Helper()
	plain, _ := porcupine.CheckOperationsVerbose(whole, ops, 0)
	parted, _ := porcupine.CheckOperationsVerbose(m, ops, 0)
	evs, _ := porcupine.CheckEventsVerbose(m, events(ops), 0)
	brute := bruteForce(whole, ops)
	agreed := assert.Equal(t, brute, plain, "%s: plain porcupine vs brute force: %s", name, describeOps(m, ops)) &&
		assert.Equal(t, plain, parted, "%s: partitioned: %s", name, describeOps(m, ops)) &&
		assert.Equal(t, plain, evs, "%s: events: %s", name, describeOps(m, ops))
	return plain, agreed
}

func describeOps(m porcupine.Model, ops []porcupine.Operation) string {
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "\n  [%d,%d] %s %+v", op.Call, op.Return, m.DescribeOperation(op.Input, op.Output), op.Input)
	}
	return b.String()
}

// unpartitioned is m over whole histories: its state holds one state of m
// per partition key, so that porcupine checks the history as one, with no
// partitioning.
func unpartitioned(m porcupine.Model, key func(in any) string) porcupine.Model {
	type keyed struct {
		keys   []string
		states []any
	}
	get := func(s keyed, k string) any {
		if i := slices.Index(s.keys, k); i >= 0 {
			return s.states[i]
		}
		return m.Init()
	}
	return porcupine.Model{
		Init: func() any { return keyed{} },
		Step: func(state, input, output any) (bool, any) {
			s, k := state.(keyed), key(input)
			legal, next := m.Step(get(s, k), input, output)
			if !legal {
				return false, state
			}
			i := slices.Index(s.keys, k)
			n := keyed{keys: slices.Clone(s.keys), states: slices.Clone(s.states)}
			if i < 0 {
				n.keys, n.states = append(n.keys, k), append(n.states, next)
			} else {
				n.states[i] = next
			}
			return true, n
		},
		Equal: func(a, b any) bool {
			x, y := a.(keyed), b.(keyed)
			for _, k := range append(slices.Clone(x.keys), y.keys...) {
				if !m.Equal(get(x, k), get(y, k)) {
					return false
				}
			}
			return true
		},
		DescribeOperation: m.DescribeOperation,
	}
}
