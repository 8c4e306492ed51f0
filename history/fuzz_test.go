package history_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// FuzzReader checks that the reader never panics, that every error on
// in-memory input is bad input (a *LineError), and that whatever it
// accepts goes through the writer and back unchanged: the writer's output
// reads back equal and writes out byte for byte the same. Seeds are the
// files in testdata/histories, a history of every event type and the
// corpus in testdata/fuzz/FuzzReader. Run it with
//
//	go test ./history -run '^$' -fuzz FuzzReader -fuzztime 30s
func FuzzReader(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.jsonl"))
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add(writeAll(f, fullHeader(), everyEvent(), history.RunEnd{At: 100, MaxDriftPPB: -1}))
	f.Add([]byte(header + "\n" + end))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, events, end, err := readAll(data)
		if err != nil {
			require.ErrorIs(t, err, history.ErrInvalid)
			return
		}
		once := writeAll(t, h, events, end)
		h2, events2, end2, err := readAll(once)
		require.NoError(t, err, "re-reading %s", once)
		// reflect.DeepEqual, not require.Equal: a diff of two long
		// histories would take the fuzzer's whole time budget.
		if !reflect.DeepEqual(h, h2) || !reflect.DeepEqual(events, events2) || end != end2 {
			t.Fatalf("%q re-reads differently from %q", once, data)
		}
		if twice := writeAll(t, h2, events2, end2); !bytes.Equal(once, twice) {
			t.Fatalf("the writer's output is not canonical: %q, then %q", once, twice)
		}
	})
}
