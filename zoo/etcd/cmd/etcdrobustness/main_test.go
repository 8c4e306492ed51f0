package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad usage exits 2 naming the flag or argument, prints nothing on stdout
// and starts nothing; -judge of the recorded archives prints both verdicts
// per history and the counts, and exits 0; a path that is not a recorded
// run exits 1 naming it.
func TestRun(t *testing.T) {
	archives, err := filepath.Glob("../../robustness/testdata/*.tar.gz")
	require.NoError(t, err)
	require.NotEmpty(t, archives)
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"judge without paths", []string{"-judge"}, 2, nil, []string{"-judge"}},
		{"paths without judge", []string{"somewhere"}, 2, nil, []string{`"somewhere"`, "-judge"}},
		{"no rounds", []string{"-rounds", "0"}, 2, nil, []string{"-rounds"}},
		{"no etcd time", []string{"-etcd-timeout", "0s"}, 2, nil, []string{"-etcd-timeout"}},
		{"unknown flag", []string{"-round", "2"}, 2, nil, []string{"-round"}},
		{"the recorded histories", append([]string{"-judge"}, archives...), 0,
			[]string{"no-fault-1.tar.gz", "etcd: linearizable; leasesim P3: ok",
				"8 histories: etcd accepted 8, rejected 0, undecided within 30s 0; leasesim accepted 8; " +
					"etcd accepted and leasesim did not: 0"}, nil},
		{"not a recorded run", []string{"-judge", missing}, 1, nil, []string{missing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), tc.args, &stdout, &stderr)
			assert.Equal(t, tc.code, code, "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
			if tc.code == 2 {
				assert.Empty(t, stdout.String())
			}
			for _, want := range tc.stdout {
				assert.Contains(t, stdout.String(), want)
			}
			for _, want := range tc.stderr {
				assert.Contains(t, stderr.String(), want)
			}
		})
	}
}
