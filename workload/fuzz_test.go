package workload_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/workload"
)

// FuzzReader checks that reading never panics, that every error on
// in-memory input is bad input (a *LineError), and that every accepted
// file re-encodes and re-reads equal. Inspect, which checks what spans
// lines, must not panic either. Seeds are the first lines of the example
// workloads (whole, they make minimising an input slow), the files in
// testdata/workloads and the corpus in testdata/fuzz/FuzzReader.
// Run it with
//
//	go test ./workload -run '^$' -fuzz FuzzReader -fuzztime 30s
func FuzzReader(f *testing.F) {
	for _, pattern := range []string{"../examples/*.jsonl", "testdata/workloads/*.jsonl"} {
		files, err := filepath.Glob(pattern)
		require.NoError(f, err)
		for _, file := range files {
			data, err := os.ReadFile(file)
			require.NoError(f, err)
			f.Add(firstLines(data, 12))
		}
	}
	f.Add([]byte(everyKind))
	f.Add([]byte(lines(header, `{"type":"task","at":"1s","id":"t1","units":20,"unit_time":"250ms"}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, events, err := readAll(bytes.NewReader(data))
		if err != nil {
			require.ErrorIs(t, err, workload.ErrInvalid)
			return
		}
		var buf bytes.Buffer
		w, err := workload.NewWriter(&buf, h)
		require.NoError(t, err)
		for _, e := range events {
			require.NoError(t, w.Write(e), "re-encoding %v", e)
		}
		require.NoError(t, w.Flush())
		h2, events2, err := readAll(bytes.NewReader(buf.Bytes()))
		require.NoError(t, err, "re-reading %s", buf.Bytes())
		require.Equal(t, h, h2)
		require.Equal(t, events, events2)

		if _, err := workload.Inspect(workload.Bytes(data)); err != nil {
			require.ErrorIs(t, err, workload.ErrInvalid)
		}
	})
}

// firstLines returns the first n lines of data.
func firstLines(data []byte, n int) []byte {
	end := 0
	for i := 0; i < n && end < len(data); i++ {
		next := bytes.IndexByte(data[end:], '\n')
		if next < 0 {
			return data
		}
		end += next + 1
	}
	return data[:end]
}
