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
	bad := filepath.Join(t.TempDir(), "bad.log")
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
