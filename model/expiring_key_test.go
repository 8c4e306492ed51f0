package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specCase is a sequence of operations of which all but the last are
// legal; why is "" if the last is legal too, else a part of its reason.
type specCase struct {
	name string
	ops  []pair
	why  string
}

// runCases runs each case through spec's Step and Explain.
func runCases(t *testing.T, spec Spec, cases []specCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			state := spec.Model.Init()
			for i, o := range tc.ops {
				legal, next := spec.Model.Step(state, o.in, o.out)
				why := spec.Explain(state, o.in, o.out)
				require.Equal(t, legal, why == "", "Step and Explain disagree: %q", why)
				if i < len(tc.ops)-1 {
					require.True(t, legal, "op %d (%s): %s", i, spec.Model.DescribeOperation(o.in, o.out), why)
				} else if tc.why == "" {
					assert.Empty(t, why)
				} else {
					assert.Contains(t, why, tc.why)
				}
				state = next
			}
		})
	}
}

// kop is a command on key "lock" at server reading t seconds.
func kop(op KeyOp, value string, ttl float64, t float64, ok bool) pair {
	return pair{KeyInput{Op: op, Client: "c", Key: "lock", Value: value, TTL: sec(ttl)},
		KeyOutput{OK: ok, ServerTime: sec(t)}}
}

func kget(t float64, value string, ok bool) pair {
	return pair{KeyInput{Op: OpGet, Key: "lock"}, KeyOutput{OK: ok, Value: value, ServerTime: sec(t)}}
}

func kincr(t float64, n int64, err KeyErr) pair {
	return pair{KeyInput{Op: OpIncr, Key: "lock"}, KeyOutput{N: n, Err: err, ServerTime: sec(t)}}
}

func TestExpiringKeyRules(t *testing.T) {
	set := func(v string, t float64, ok bool) pair { return kop(OpSetNXPX, v, 3, t, ok) }
	runCases(t, ExpiringKeySpec(), []specCase{
		{"set on an absent key", []pair{set("a", 1, true)}, ""},
		{"set on a present key", []pair{set("a", 1, true), set("b", 2, true)}, "set, but the key is \"a\" until 4s"},
		{"refused while present", []pair{set("a", 1, true), set("b", 4, false)}, ""},
		{"present at exactly the TTL", []pair{set("a", 1, true), kget(4, "a", true)}, ""},
		{"gone after the TTL", []pair{set("a", 1, true), set("b", 4.001, true)}, ""},
		{"refused after the TTL", []pair{set("a", 1, true), set("b", 4.001, false)}, "not set, but the key is absent"},
		{"time goes backwards", []pair{set("a", 2, true), kget(1, "a", true)}, "went backwards"},
		{"get the wrong value", []pair{set("a", 1, true), kget(2, "b", true)}, "get \"b\""},
		{"del by the owner", []pair{set("a", 1, true), kop(OpDelIfEqual, "a", 0, 2, true), kget(2, "", false)}, ""},
		{"del by another", []pair{set("a", 1, true), kop(OpDelIfEqual, "b", 0, 2, true)}, "acted"},
		{"del after expiry", []pair{set("a", 1, true), kop(OpDelIfEqual, "a", 0, 5, true)}, "acted, but the key is absent"},
		{"pexpire extends", []pair{set("a", 1, true), kop(OpPExpireIfEqual, "a", 3, 3, true), set("b", 5, false), set("b", 6.5, true)}, ""},
		{"pexpire by another", []pair{set("a", 1, true), kop(OpPExpireIfEqual, "b", 3, 3, false), set("b", 4.5, true)}, ""},
		{"incr counts from 1", []pair{kincr(0, 1, KeyOK), kincr(0, 2, KeyOK)}, ""},
		{"incr skips", []pair{kincr(0, 1, KeyOK), kincr(0, 3, KeyOK)}, "incr returned 3"},
		{"incr of a string", []pair{set("a", 1, true), kincr(1, 0, KeyNotInteger)}, ""},
		{"incr of a string succeeds", []pair{set("a", 1, true), kincr(1, 1, KeyOK)}, "not an integer"},
		{"incr keeps the expiry", []pair{set("7", 1, true), kincr(2, 8, KeyOK), kincr(4.5, 1, KeyOK)}, ""},
		{"an unknown failure", []pair{pair{KeyInput{Op: OpGet}, KeyOutput{Err: "oom"}}}, "get cannot fail with oom"},
		{"bad request", []pair{pair{KeyInput{Op: OpGet}, KeyOutput{Err: KeyBadRequest}}}, ""},
	})
}

// keyGen draws commands on a lock key, a second key and a counter, with a
// 3s TTL and server readings in whole seconds.
func keyGen() opGen {
	return opGen{
		spec: ExpiringKeySpec(),
		key:  func(in any) string { return keyInput(in).Key },
		input: func(r *rand.Rand) any {
			key := pick(r, "lock", "lock", "other", "fence")
			op := pick(r, OpSetNXPX, OpSetNXPX, OpGet, OpDelIfEqual, OpPExpireIfEqual)
			if key == "fence" {
				op = pick(r, OpIncr, OpIncr, OpGet)
			}
			return KeyInput{Op: op, Client: pick(r, "a", "b"), Key: key, Value: pick(r, "a", "b"), TTL: 3 * time.Second}
		},
		output: func(r *rand.Rand, _ any, now int64, _ any) (any, int64) {
			clock := now + pick[int64](r, 0, 0, 1, 2, 3, 4)
			return KeyOutput{Err: pick(r, KeyOK, KeyOK, KeyOK, KeyOK, KeyNotInteger, KeyBadRequest), OK: r.IntN(2) == 0,
				Value: pick(r, "a", "b", "1"), N: int64(1 + r.IntN(4)), ServerTime: time.Duration(clock) * time.Second}, clock
		},
	}
}

func TestExpiringKeyDifferential(t *testing.T) {
	c := differential(t, keyGen(), 11, histories(), 8)
	t.Logf("%d linearizable, %d illegal", c.ok, c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}
