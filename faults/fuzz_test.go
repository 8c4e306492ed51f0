package faults

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse checks that Parse and Validate never panic on any input, and
// that whatever parses re-encodes and re-parses to an equal schedule. Seeds
// are the example schedules in testdata/schedules and the corpus in
// testdata/fuzz/FuzzParse. Run it with
//
//	go test ./faults -run '^$' -fuzz FuzzParse -fuzztime 30s
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "schedules", "*.json"))
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"version":1,"heal_at":"40s","events":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(bytes.NewReader(data))
		if err != nil {
			require.ErrorIs(t, err, ErrInvalid)
			return
		}
		// Validation must not panic. A schedule that is not valid need not
		// survive the round trip: a link with no latency at all, say,
		// re-encodes as a latency of kind "", which sim.Dist refuses to read.
		if err := s.Validate(testNodes); err != nil {
			require.ErrorIs(t, err, ErrInvalid)
			return
		}
		b, err := json.Marshal(s)
		require.NoError(t, err)
		again, err := Parse(bytes.NewReader(b))
		require.NoError(t, err, "re-parsing %s", b)
		require.Equal(t, s, again, "round trip of %s", b)
		require.NoError(t, again.Validate(testNodes))
	})
}

func TestExampleSchedulesInTestdata(t *testing.T) {
	for _, tt := range []struct {
		file  string
		valid bool
	}{
		{"every-kind.json", true},
		{"kleppmann-gc-pause.json", true},
		{"split-brain.json", true},
		{"invalid-contradiction.json", false},
	} {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", "schedules", tt.file))
			require.NoError(t, err)
			defer f.Close()
			s, err := Parse(f)
			require.NoError(t, err)
			if tt.valid {
				require.NoError(t, s.Validate(testNodes))
			} else {
				require.EqualError(t, s.Validate(testNodes), `faults: event 1 (restart): node: "n1" is not crashed at 1s`)
			}
		})
	}
}
