package reports

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFileAtomic(t *testing.T) {
	content := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	for _, tc := range []struct {
		name    string
		write   func(io.Writer) error
		want    string // path's content afterwards
		wantErr bool
	}{
		{"replaces the file", content("new"), "new", false},
		{"a rendering error leaves the old file", func(w io.Writer) error {
			_, _ = io.WriteString(w, "half")
			return errors.New("render failed")
		}, "old", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.html")
			require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
			// A reader holding the old file: a hard link to the same inode.
			reader := filepath.Join(t.TempDir(), "reader")
			require.NoError(t, os.Link(path, reader))

			err := WriteFileAtomic(path, tc.write)
			if tc.wantErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
			old, err := os.ReadFile(reader)
			require.NoError(t, err)
			assert.Equal(t, "old", string(old), "the new file is renamed into place, never written over the old one")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file left behind")
			info, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), info.Mode().Perm()&^0o022)
		})
	}
}
