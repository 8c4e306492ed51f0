package reports

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"

	"github.com/google/renameio/v2"
)

// filePerm is the permission of every file the reports write (before the
// umask).
const filePerm fs.FileMode = 0o644

// WriteFileAtomic renders a file with write and puts it at path
// atomically: the bytes are rendered in memory first (a rendering error
// leaves path as it was), then written to a temporary file next to path,
// fsynced and renamed over it. A reader sees the old file or the new one,
// never a half-written one, even if the process dies midway. Every file
// the reports package writes goes through here; other packages that write
// files may use it too.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err // already says what was being written
	}
	if err := renameio.WriteFile(path, buf.Bytes(), filePerm); err != nil {
		return fmt.Errorf("reports: writing %s: %w", path, err)
	}
	return nil
}
