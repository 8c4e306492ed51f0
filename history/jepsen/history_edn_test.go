package jepsen

import (
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// op writes one Jepsen operation map.
func op(process, typ, f, value string) string {
	return "{:type :" + typ + ", :f :" + f + ", :value " + value + ", :process " + process + ", :time 1}\n"
}

// Jepsen's history.edn of registers, compare-and-set registers and
// mutexes, judged by the specification the operations name.
func TestReadEDNVerdicts(t *testing.T) {
	tests := []struct {
		name, edn, spec string
		ops             int
		linearizable    bool
	}{
		{"a register", op("0", "invoke", "write", "1") + op("0", "ok", "write", "1") + op("1", "invoke", "read", "nil") +
			op("1", "ok", "read", "1"), "cas-register", 2, true},
		{"a stale read", op("0", "invoke", "write", "1") + op("0", "ok", "write", "1") + op("0", "invoke", "write", "2") +
			op("0", "ok", "write", "2") + op("1", "invoke", "read", "nil") + op("1", "ok", "read", "1"), "cas-register", 3, false},
		{"a cas that took effect", op("0", "invoke", "write", "1") + op("0", "ok", "write", "1") +
			op("1", "invoke", "cas", "[1 3]") + op("1", "ok", "cas", "[1 3]") + op("2", "invoke", "read", "nil") +
			op("2", "ok", "read", "3"), "cas-register", 3, true},
		{"a failed write did not happen", op("0", "invoke", "write", "1") + op("0", "fail", "write", "1") +
			op("1", "invoke", "read", "nil") + op("1", "ok", "read", "1"), "cas-register", 1, false},
		{"an indeterminate write may have happened", op("0", "invoke", "write", "1") + op("0", "info", "write", "1") +
			op("1", "invoke", "read", "nil") + op("1", "ok", "read", "1"), "cas-register", 2, true},
		{"the nemesis is skipped", "{:type :info, :f :start, :value nil, :process :nemesis}\n" +
			op("1", "invoke", "read", "nil") + op("1", "ok", "read", "nil"), "cas-register", 1, true},
		{"a mutex", op("0", "invoke", "acquire", "nil") + op("0", "ok", "acquire", "nil") + op("0", "invoke", "release", "nil") +
			op("0", "ok", "release", "nil") + op("1", "invoke", "acquire", "nil") + op("1", "ok", "acquire", "nil"), "mutex", 3, true},
		{"a mutex held twice", op("0", "invoke", "acquire", "nil") + op("0", "ok", "acquire", "nil") +
			op("1", "invoke", "acquire", "nil") + op("1", "ok", "acquire", "nil"), "mutex", 2, false},
		{"one vector, tagged, with comments and discards", "; a history\n[#jepsen.history.Op" +
			strings.TrimSpace(op("0", "invoke", "write", "5")) + " #_ {:ignored true} " + op("0", "ok", "write", "5") + "]",
			"cas-register", 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ops, spec, err := ReadEDN(strings.NewReader(tc.edn), "history.edn")
			require.NoError(t, err)
			assert.Equal(t, tc.spec, spec.Name)
			assert.Len(t, ops, tc.ops)
			assert.Equal(t, tc.linearizable, porcupine.CheckOperations(spec.Model, ops))
		})
	}
}

func TestReadEDNBadInput(t *testing.T) {
	tests := []struct{ name, edn, err string }{
		{"not a map", "[1 2]", "history.edn:1: an operation is a map, not int64"},
		{"no type", "{:f :read}", "history.edn:1: no field :type"},
		{"a foreign function", op("0", "invoke", "enqueue", "1"), `history.edn:1: field :f: :enqueue is not a register or mutex operation`},
		{"mixed", op("0", "invoke", "read", "nil") + op("0", "ok", "read", "nil") + op("1", "invoke", "acquire", "nil"),
			"history.edn:3: field :f: :acquire in a register history"},
		{"a completion with no invocation", "\n" + op("0", "ok", "read", "nil"), "history.edn:2: process 0 completes :read with no open invocation"},
		{"a bad cas", op("0", "invoke", "cas", "[1]"), "history.edn:1: field :value: a cas of [1]"},
		{"unclosed", "{:type :invoke", "history.edn:1: unclosed collection"},
		{"an odd map", "{:type}", "a map with an odd number of forms"},
		{"too deep", strings.Repeat("[", 100), "nested deeper than 64"},
		{"unterminated string", `{:type "x`, "unterminated string"},
		{"a bad process", "{:type :invoke, :f :read, :process \"p\"}", "field :process"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadEDN(strings.NewReader(tc.edn), "history.edn")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

// FuzzReadEDN: the reader never panics, and what it accepts are operations
// of the specification it names, each returning after it was called.
func FuzzReadEDN(f *testing.F) {
	f.Add(op("0", "invoke", "cas", "[1 2]") + op("0", "ok", "cas", "[1 2]"))
	f.Add("[" + op("0", "invoke", "acquire", "nil") + op("0", "info", "acquire", "nil") + "]")
	f.Add(`{:type :invoke, :f :read, :value nil, :process :nemesis, :s "a\"b" \c 1.5 -2N #{1 2} (x y)}`)
	f.Fuzz(func(t *testing.T, edn string) {
		ops, spec, err := ReadEDN(strings.NewReader(edn), "fuzz.edn")
		if err != nil {
			return
		}
		for _, op := range ops {
			if op.Return < op.Call {
				t.Fatalf("operation returns at %d before its call at %d", op.Return, op.Call)
			}
			spec.Model.Step(spec.Model.Init(), op.Input, op.Output)
		}
	})
}
