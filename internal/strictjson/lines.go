package strictjson

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Lines reads JSON lines, one record a line, holding one line at a time:
// blank lines are skipped but counted, and a line longer than a limit is
// refused, so a reader's memory does not grow with its input.
type Lines struct {
	sc    *bufio.Scanner
	name  string
	limit int
	line  int // lines read so far
}

// NewLines reads r. A line and its newline must fit in limit bytes: a
// line of limit bytes or more is refused (a writer that checks
// len(line)+1 <= limit never writes one). name prefixes the errors of r:
// "history: reading line 3: disk on fire".
func NewLines(r io.Reader, limit int, name string) *Lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(4096, limit)), limit)
	return &Lines{sc: sc, name: name, limit: limit}
}

// Line returns how many lines have been read: the number, from 1, of the
// line Next returned last.
func (l *Lines) Line() int { return l.line }

// Next returns the next line that is not blank, or io.EOF after the last.
// The bytes are valid until the next call. A line over the limit is a
// *TooLongError; an error of the underlying reader is returned wrapped,
// naming the line it stopped in.
func (l *Lines) Next() ([]byte, error) {
	for l.sc.Scan() {
		l.line++
		if text := l.sc.Bytes(); len(bytes.TrimSpace(text)) > 0 {
			return text, nil
		}
	}
	err := l.sc.Err()
	switch {
	case err == nil:
		return nil, io.EOF
	case errors.Is(err, bufio.ErrTooLong):
		return nil, &TooLongError{Line: l.line + 1, Limit: l.limit}
	}
	return nil, fmt.Errorf("%s: reading line %d: %w", l.name, l.line+1, err)
}

// TooLongError is a line longer than the limit of Lines: bad input, which
// a reader reports in its own error type.
type TooLongError struct {
	// Line is the line's number, from 1.
	Line int
	// Limit is the limit in bytes.
	Limit int
}

// Error formats the error as "longer than the limit of N bytes".
func (e *TooLongError) Error() string {
	return fmt.Sprintf("longer than the limit of %d bytes", e.Limit)
}
