package jepsen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/model"
)

// porcupineVerdicts are the verdicts porcupine v1.3.1's porcupine_test.go
// asserts for its published etcd histories (TestEtcdJepsen000-102,
// checkJepsen(t, N, linearizable)); there is no 95.
var porcupineVerdicts = map[int]bool{
	0: false, 1: false, 2: true, 3: false, 4: false, 5: true, 6: false, 7: true, 8: false, 9: false, 10: false,
	11: false, 12: false, 13: false, 14: false, 15: false, 16: false, 17: false, 18: true, 19: false, 20: false,
	21: false, 22: false, 23: false, 24: false, 25: true, 26: false, 27: false, 28: false, 29: false, 30: false,
	31: true, 32: false, 33: false, 34: false, 35: false, 36: false, 37: false, 38: true, 39: false, 40: false,
	41: false, 42: false, 43: false, 44: false, 45: true, 46: false, 47: false, 48: true, 49: true, 50: false,
	51: true, 52: false, 53: true, 54: false, 55: false, 56: true, 57: false, 58: false, 59: false, 60: false,
	61: false, 62: false, 63: false, 64: false, 65: false, 66: false, 67: true, 68: false, 69: false, 70: false,
	71: false, 72: false, 73: false, 74: false, 75: true, 76: true, 77: false, 78: false, 79: false, 80: true,
	81: false, 82: false, 83: false, 84: false, 85: false, 86: false, 87: true, 88: false, 89: false, 90: false,
	91: false, 92: true, 93: false, 94: false, 96: false, 97: false, 98: true, 99: false, 100: true, 101: true,
	102: true,
}

// PorcupineDir holds porcupine's published etcd histories (see its README).
const porcupineDir = "testdata/porcupine-v1.3.1"

// TestPorcupineEtcdVerdicts: every published etcd history gets exactly the
// verdict porcupine's tests assert, through this reader and
// model.CASRegister; no file is left unjudged.
func TestPorcupineEtcdVerdicts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(porcupineDir, "etcd_*.log"))
	require.NoError(t, err)
	require.Len(t, files, len(porcupineVerdicts))
	matched, linearizable := 0, 0
	for n, want := range porcupineVerdicts {
		file := filepath.Join(porcupineDir, fmt.Sprintf("etcd_%03d.log", n))
		fh, err := os.Open(file)
		require.NoError(t, err)
		ops, err := ReadLog(fh, file)
		fh.Close()
		require.NoError(t, err)
		require.NotEmpty(t, ops, file)
		if assert.Equal(t, want, porcupine.CheckOperations(model.CASRegister(), ops), file) {
			matched++
		}
		if want {
			linearizable++
		}
	}
	t.Logf("%d of %d verdicts equal porcupine's (%d linearizable, %d not)", matched, len(porcupineVerdicts),
		linearizable, len(porcupineVerdicts)-linearizable)
}

func TestReadLog(t *testing.T) {
	const head = "INFO  jepsen.util - "
	tests := []struct {
		name string
		log  string
		want []porcupine.Operation
		err  string
	}{
		{"a write, a cas and a read", head + "0\t:invoke\t:write\t4\n" + head + "0\t:ok\t:write\t4\n" +
			head + "1 :invoke :cas [4 5]\n" + head + "1 :fail :cas [4 5]\n" + head + "2 :invoke :read nil\n" + head + "2 :ok :read 4\n",
			[]porcupine.Operation{
				{ClientId: 0, Input: model.CASInput{Op: model.CASWrite, Value: 4}, Output: model.CASOutput{Known: true}, Call: 1, Return: 2},
				{ClientId: 1, Input: model.CASInput{Op: model.CASSet, From: 4, To: 5}, Output: model.CASOutput{Known: true}, Call: 3, Return: 4},
				{ClientId: 2, Input: model.CASInput{Op: model.CASRead}, Output: model.CASOutput{Known: true, Exists: true, Value: 4}, Call: 5, Return: 6},
			}, ""},
		{"indeterminate operations return after every line", head + "3 :invoke :write 1\n" + head + "3 :info :write :timed-out\n" +
			head + "4 :invoke :read nil\n" + head + "4 :fail :read :timed-out\n" + head + "5 :invoke :read nil\n",
			[]porcupine.Operation{
				{ClientId: 3, Input: model.CASInput{Op: model.CASWrite, Value: 1}, Output: model.CASOutput{}, Call: 1, Return: 6},
				{ClientId: 4, Input: model.CASInput{Op: model.CASRead}, Output: model.CASOutput{}, Call: 3, Return: 4},
				{ClientId: 5, Input: model.CASInput{Op: model.CASRead}, Output: model.CASOutput{}, Call: 5, Return: 6},
			}, ""},
		{"not a log line", head + "0 :invoke :write 1\nhello\n", nil, "f.log:2: not a jepsen.util line"},
		{"a completion without an invocation", head + "0 :ok :write 1\n", nil, "f.log:1: process 0 completes write with no open invocation"},
		{"two invocations at once", head + "0 :invoke :write 1\n" + head + "0 :invoke :read nil\n", nil, "f.log:2: process 0 invokes read"},
		{"another function completed", head + "0 :invoke :write 1\n" + head + "0 :ok :read 1\n", nil, "f.log:2: process 0 completes read, but it invoked write"},
		{"a bad cas", head + "0 :invoke :cas [1]\n", nil, "f.log:1: cas of \"[1]\""},
		{"a bad read", head + "0 :invoke :read nil\n" + head + "0 :ok :read x\n", nil, "f.log:2: read returned \"x\""},
		{"a failed write", head + "0 :invoke :write 1\n" + head + "0 :fail :write 1\n", nil, "f.log:2: a write cannot :fail"},
		{"a line too long", head + "0 :invoke :write " + strings.Repeat("1", maxLine) + "\n", nil, "f.log:1: bufio.Scanner: token too long"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadLog(strings.NewReader(tc.log), "f.log")
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzReadLog: the reader never panics, and what it accepts is register
// operations, each returning after it was called.
func FuzzReadLog(f *testing.F) {
	for _, n := range []int{0, 2, 96} {
		b, err := os.ReadFile(filepath.Join(porcupineDir, fmt.Sprintf("etcd_%03d.log", n)))
		require.NoError(f, err)
		f.Add(string(b[:min(len(b), 600)]))
	}
	f.Add("INFO  jepsen.util - 0 :invoke :cas [1 2]\nINFO  jepsen.util - 0 :info :cas :timed-out\n")
	f.Fuzz(func(t *testing.T, log string) {
		ops, err := ReadLog(strings.NewReader(log), "fuzz.log")
		if err != nil {
			return
		}
		for _, op := range ops {
			if op.Return < op.Call {
				t.Fatalf("operation returns at %d before its call at %d", op.Return, op.Call)
			}
			_ = op.Input.(model.CASInput)
			_ = op.Output.(model.CASOutput)
		}
	})
}
