package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCASRegisterRules(t *testing.T) {
	read := func(exists bool, v int64) pair {
		return pair{CASInput{Op: CASRead}, CASOutput{Known: true, Exists: exists, Value: v}}
	}
	write := func(v int64) pair { return pair{CASInput{Op: CASWrite, Value: v}, CASOutput{Known: true}} }
	cas := func(from, to int64, ok bool) pair {
		return pair{CASInput{Op: CASSet, From: from, To: to}, CASOutput{Known: true, OK: ok}}
	}
	runCases(t, CASRegisterSpec(), []specCase{
		{"nil at first", []pair{read(false, 0)}, ""},
		{"a value from nowhere", []pair{read(true, 0)}, "read returned 0, but the register holds nil"},
		{"write then read", []pair{write(3), read(true, 3)}, ""},
		{"a lost write", []pair{write(3), write(4), read(true, 3)}, "holds 4"},
		{"cas that matches", []pair{write(3), cas(3, 5, true), read(true, 5)}, ""},
		{"cas that fails", []pair{write(3), cas(2, 5, false), read(true, 3)}, ""},
		{"cas succeeds without a match", []pair{write(3), cas(2, 5, true)}, "succeeded, but the register holds 3"},
		{"cas on nil", []pair{cas(0, 5, true)}, "holds nil"},
		{"an unknown cas takes effect if it matches", []pair{write(3), {CASInput{Op: CASSet, From: 3, To: 4}, CASOutput{}}, read(true, 4)}, ""},
		{"an unknown read is legal", []pair{write(3), {CASInput{Op: CASRead}, CASOutput{}}}, ""},
	})
}

// casGen draws register operations on two keys, values 0-3.
func casGen() opGen {
	return opGen{
		spec: CASRegisterSpec(),
		key:  func(in any) string { return in.(CASInput).Key },
		input: func(r *rand.Rand) any {
			return CASInput{Op: pick(r, CASRead, CASRead, CASWrite, CASSet), Key: pick(r, "", "k"), Value: r.Int64N(4),
				From: r.Int64N(4), To: r.Int64N(4)}
		},
		output: func(r *rand.Rand, _ any, now int64, _ any) (any, int64) {
			return CASOutput{Known: r.IntN(8) > 0, OK: r.IntN(2) == 0, Exists: r.IntN(5) > 0, Value: r.Int64N(4)}, now
		},
	}
}

func TestCASRegisterDifferential(t *testing.T) {
	c := differential(t, casGen(), 31, histories(), 8)
	t.Logf("%d linearizable, %d illegal", c.ok, c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}
