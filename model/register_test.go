package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFencedRegisterRules(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		why   string // "" if the last step is legal, else a part of Explain's reason
	}{
		{"read before any write", []step{readOp("c", "k", 0, "")}, ""},
		{"writes under rising tokens", []step{writeOp("h1", 1, "k", "a", ok, 1), writeOp("h2", 2, "k", "b", ok, 2), readOp("c", "k", 2, "b")}, ""},
		{"write under the same token again", []step{writeOp("h1", 2, "k", "a", ok, 2), writeOp("h1", 2, "k", "b", ok, 2), readOp("c", "k", 2, "b")}, ""},
		{"stale write accepted", []step{writeOp("h2", 2, "k", "b", ok, 2), writeOp("h1", 1, "k", "a", ok, 1)}, "write under tok 1 by h1 accepted, but tok 2 was accepted before"},
		{"stale write fenced", []step{writeOp("h2", 2, "k", "b", ok, 2), writeOp("h1", 1, "k", "a", fenced, 2), readOp("c", "k", 2, "b")}, ""},
		{"current write fenced", []step{writeOp("h2", 2, "k", "b", ok, 2), writeOp("h2", 2, "k", "c", fenced, 2)}, "fenced, but the highest accepted is tok 2"},
		{"fenced naming the wrong highest", []step{writeOp("h2", 2, "k", "b", ok, 2), writeOp("h1", 1, "k", "a", fenced, 3)}, "names highest tok 3"},
		{"the highest token is shared by keys", []step{writeOp("h2", 2, "x", "b", ok, 2), writeOp("h1", 1, "y", "a", ok, 1)}, "tok 2 was accepted before"},
		{"keys keep their own values", []step{writeOp("h1", 1, "x", "a", ok, 1), writeOp("h2", 2, "y", "b", ok, 2), readOp("c", "x", 1, "a"), readOp("c", "y", 2, "b")}, ""},
		{"read returns an overwritten value", []step{writeOp("h1", 1, "k", "a", ok, 1), writeOp("h2", 2, "k", "b", ok, 2), readOp("c", "k", 1, "a")}, "the latest write is tok 2 \"b\""},
		{"read returns a value never written", []step{readOp("c", "k", 0, "z")}, "the latest write is tok 0 \"\""},
		{"write fails otherwise", []step{writeOp("h1", 1, "k", "a", expired, 0)}, "write cannot fail with lease_expired"},
		{"bad request", []step{writeOp("h1", 1, "k", "a", badRequest, 0)}, ""},
		{"not a register operation", []step{renewOp("h1", 0, 1, ok)}, "not a fenced-register operation"},
	}
	spec := FencedRegisterSpec()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			legal, why := runSteps(t, spec, tc.steps)
			if tc.why == "" {
				assert.True(t, legal, why)
				return
			}
			assert.False(t, legal)
			assert.Contains(t, why, tc.why)
		})
	}
}

func TestFencedRegisterStepIsPure(t *testing.T) {
	m := FencedRegister()
	w1, w2 := writeOp("h1", 1, "x", "a", ok, 1), writeOp("h2", 2, "x", "b", ok, 2)
	_, s1 := m.Step(m.Init(), w1.in, w1.out)
	_, s2 := m.Step(s1, w2.in, w2.out)
	assert.Equal(t, `highest tok 1; "x"=tok 1 "a"`, m.DescribeState(s1), "s1 unchanged by the step after it")
	assert.Equal(t, `highest tok 2; "x"=tok 2 "b"`, m.DescribeState(s2))
	assert.False(t, m.Equal(s1, s2))
	assert.True(t, m.Equal(s2, registerState{highest: 2, cells: []cell{{key: "x", token: 2, value: "b"}}}))
	assert.NotEqual(t, m.Hash(s1), m.Hash(s2))
	assert.Equal(t, `write(h1, tok 1, "x"="a") -> ok`, m.DescribeOperation(w1.in, w1.out))
	f := writeOp("h1", 1, "x", "a", fenced, 2)
	assert.Equal(t, `write(h1, tok 1, "x"="a") -> fenced (highest tok 2)`, m.DescribeOperation(f.in, f.out))
	r := readOp("c", "x", 2, "b")
	assert.Equal(t, `read(c, "x") -> tok 2 "b"`, m.DescribeOperation(r.in, r.out))
}
