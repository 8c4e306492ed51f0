package workload

import (
	"errors"
	"io"
	"time"

	"github.com/leasesim/leasesim/internal/strictjson"
)

// Reader reads a workload line by line. It holds one line at a time, so
// its memory does not grow with the file. Every error that comes from the
// content is a *LineError naming the line and the field; an error of the
// underlying reader is returned wrapped. After an error, Next keeps
// returning it.
type Reader struct {
	lines  *strictjson.Lines
	line   int // lines read so far: lines.Line() after each read
	header Header
	prev   time.Duration // At of the previous event
	prevAt int           // its line
	obj    object        // the current line, reused
	err    error
}

// NewReader reads the header from r and returns a Reader positioned at the
// first event.
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{lines: strictjson.NewLines(r, MaxLineBytes, "workload")}
	text, err := rd.nextLine()
	if err == io.EOF {
		return nil, &LineError{Err: errors.New("empty input: the first line must be the header")}
	}
	if err != nil {
		return nil, err
	}
	o, ferr := parseObject(text)
	if ferr != nil {
		return nil, ferr.at(rd.line, "header")
	}
	typ, ok, ferr := o.str("type")
	switch {
	case ferr != nil:
		return nil, ferr.at(rd.line, "header")
	case !ok:
		return nil, badf("type", "missing: the first line must be the header").at(rd.line, "")
	case Type(typ) != TypeHeader:
		return nil, badf("type", "want %q on the first line, got %s", TypeHeader, quote(typ)).at(rd.line, "")
	}
	h, ferr := decodeHeader(o)
	if ferr == nil {
		ferr = checkHeader(h)
	}
	if ferr != nil {
		return nil, ferr.at(rd.line, "header")
	}
	rd.header = h
	rd.prevAt = rd.line
	return rd, nil
}

// Header returns the workload's header.
func (r *Reader) Header() Header { return r.header }

// Line returns the line number of the header or event read last.
func (r *Reader) Line() int { return r.prevAt }

// Next returns the next event, or io.EOF after the last one.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	e, err := r.next()
	if err != nil {
		r.err = err
		return Event{}, err
	}
	return e, nil
}

func (r *Reader) next() (Event, error) {
	text, err := r.nextLine()
	if err != nil {
		return Event{}, err
	}
	o := &r.obj
	if ferr := o.parse(text); ferr != nil {
		return Event{}, ferr.at(r.line, "")
	}
	typ, ok, ferr := o.str("type")
	switch {
	case ferr != nil:
		return Event{}, ferr.at(r.line, "")
	case !ok:
		return Event{}, badf("type", "missing (want %s)", quoteList(typeNames())).at(r.line, "")
	case Type(typ) == TypeHeader:
		return Event{}, badf("type", "a second header: only line 1 is a header").at(r.line, "")
	}
	if _, known := eventFields[Type(typ)]; !known {
		return Event{}, badf("type", "unknown event type %s (want %s)", quote(typ), quoteList(typeNames())).at(r.line, "")
	}
	e, ferr := decodeEvent(o, Type(typ))
	if ferr == nil {
		ferr = checkEvent(e, r.header)
	}
	if ferr == nil && e.At < r.prev {
		ferr = badf("at", "%v is before %v, the time of the event on line %d: events must come in time order",
			e.At, r.prev, r.prevAt)
	}
	if ferr != nil {
		return Event{}, ferr.at(r.line, e.subject())
	}
	r.prev, r.prevAt = e.At, r.line
	return e, nil
}

// nextLine returns the next line that is not blank, or io.EOF; a line
// over the limit is a *LineError.
func (r *Reader) nextLine() ([]byte, error) {
	text, err := r.lines.Next()
	r.line = r.lines.Line()
	if tooLong, ok := err.(*strictjson.TooLongError); ok {
		return nil, &LineError{Line: tooLong.Line, Err: tooLong}
	}
	return text, err
}
