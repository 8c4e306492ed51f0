package history

import (
	"bufio"
	"fmt"
	"io"

	"github.com/go-json-experiment/json"
)

// Writer writes a history file that Reader reads back equal: the header
// (NewWriter), events in any order (Write), then the end record (End). It
// checks every record with the reader's rules, so a producer's mistake is
// caught where it is made, as a *LineError naming the line it would have
// had. Its output is canonical: one record a line, fields in schema
// order, absent fields left out. A write error is sticky.
type Writer struct {
	buf    *bufio.Writer
	header Header
	line   int // lines written
	latest Time
	ended  bool
	err    error
}

// NewWriter checks h and writes it as the first line. A zero h.Version
// means SchemaVersion.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Version == 0 {
		h.Version = SchemaVersion
	}
	if err := h.check(); err != nil {
		return nil, err.at("", 1)
	}
	wr := &Writer{buf: bufio.NewWriter(w), header: h, latest: -1}
	if err := wr.put(h.toWire()); err != nil {
		return nil, err
	}
	return wr, nil
}

// Write checks e and writes it as the next line.
func (w *Writer) Write(e Event) error {
	switch {
	case w.err != nil:
		return w.err
	case w.ended:
		return badf("", "a record after the %q record", TypeEnd).at("", w.line+1)
	}
	if ferr := e.check(); ferr != nil {
		return ferr.at("", w.line+1)
	}
	earliest, latest := e.bounds()
	if earliest != Unknown && earliest < w.header.Start {
		return badf("", "time %d is before the header's start_ns %d", int64(earliest), int64(w.header.Start)).at("", w.line+1)
	}
	if err := w.put(e.toWire()); err != nil {
		return err
	}
	w.latest = max(w.latest, latest)
	return nil
}

// End checks e, writes it as the last line and flushes.
func (w *Writer) End(e RunEnd) error {
	switch {
	case w.err != nil:
		return w.err
	case w.ended:
		return badf("", "a second %q record", TypeEnd).at("", w.line+1)
	}
	ferr := e.check(&w.header)
	if ferr == nil && e.At < w.latest {
		ferr = badf("at_ns", "%d is before %d, a time of an event written earlier", int64(e.At), int64(w.latest))
	}
	if ferr != nil {
		return ferr.at("", w.line+1)
	}
	if err := w.put(e.toWire()); err != nil {
		return err
	}
	w.ended = true
	return w.Flush()
}

// Flush writes any buffered data to the underlying writer, so that a long
// real run's history is on disk as it goes.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.buf.Flush(); err != nil {
		w.err = fmt.Errorf("history: writing: %w", err)
	}
	return w.err
}

// Lines returns how many lines have been written.
func (w *Writer) Lines() int { return w.line }

// put writes one wire record as a line.
func (w *Writer) put(v any) error {
	b, err := json.Marshal(v)
	switch {
	case err != nil:
		return fmt.Errorf("history: encoding line %d: %w", w.line+1, err)
	case len(b)+1 > MaxLineBytes: // the line and its newline must fit the reader's buffer
		return badf("", "the record is %d bytes, over the limit of %d a line", len(b), MaxLineBytes).at("", w.line+1)
	}
	b = append(b, '\n')
	if _, err := w.buf.Write(b); err != nil {
		w.err = fmt.Errorf("history: writing line %d: %w", w.line+1, err)
		return w.err
	}
	w.line++
	return nil
}
