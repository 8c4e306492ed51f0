package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simrun check --format jepsen-log judges porcupine's published etcd
// histories as porcupine does (all 102 are pinned in history/jepsen), shows
// the longest linearizable prefix of a violated one, and refuses bad input
// naming the file and the line.
func TestCheckJepsenLog(t *testing.T) {
	const data = "../../history/jepsen/testdata/porcupine-v1.3.1/"
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.log")
	mutex := filepath.Join(dir, "history.edn")
	require.NoError(t, os.WriteFile(mutex, []byte(`{:type :invoke, :f :acquire, :value nil, :process 0}
{:type :ok, :f :acquire, :value nil, :process 0}
{:type :invoke, :f :acquire, :value nil, :process 1}
{:type :ok, :f :acquire, :value nil, :process 1}
`), 0o644))
	badEDN := filepath.Join(dir, "bad.edn")
	require.NoError(t, os.WriteFile(badEDN, []byte("{:type :invoke, :f :read, :process 0}\n{:type :ok, :f :enqueue, :process 0}\n"), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte("INFO  jepsen.util - 0\t:invoke\t:write\t1\nnonsense\n"), 0o644))
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"linearizable", []string{data + "etcd_002.log", "--format", "jepsen-log"}, exitOK,
			[]string{"P3 linearizability   OK: 77 operations", "NOT APPLICABLE"}, nil},
		{"not linearizable", []string{data + "etcd_000.log", "--format", "jepsen-log"}, exitViolated,
			[]string{"P3 linearizability   VIOLATED", "the longest linearizable prefix has 43 operations",
				"#43 read() -> 2: read returned 2, but the register holds 0"}, nil},
		{"bad input", []string{bad, "--format", "jepsen-log"}, exitUsage, nil, []string{bad + ":2: not a jepsen.util line"}},
		{"no such format", []string{bad, "--format", "edn"}, exitUsage, nil, []string{`--format: "edn" is not a format`}},
		{"a mutex acquired twice", []string{mutex, "--format", "jepsen-edn"}, exitViolated,
			[]string{"spec mutex, 2 operations", "P3 linearizability   VIOLATED",
				"#1 acquire() -> ok: acquire succeeded, but the mutex is held"}, nil},
		{"bad edn", []string{badEDN, "--format", "jepsen-edn"}, exitUsage, nil, []string{badEDN + ":2: field :f: :enqueue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := simrunCheck(t, tt.args...)
			assert.Equal(t, tt.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			for _, s := range tt.stdout {
				assert.Contains(t, r.stdout, s)
			}
			for _, s := range tt.stderr {
				assert.Contains(t, r.stderr, s)
			}
		})
	}
}
