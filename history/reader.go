package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/leasesim/leasesim/internal/strictjson"
)

// MaxLineBytes bounds one line of a history file, and so the memory the
// reader needs: it holds one line at a time.
const MaxLineBytes = 1 << 20

// Reader reads a history file, JSON lines, one record at a time: the
// header first (NewReader), then the events (Next), then the end record.
// It is strict: unknown, duplicate and missing fields, nulls, wrong types
// and values that break the schema's rules are refused, each with a
// *LineError naming the line and the field. Its memory does not grow with
// the file. After an error, Next keeps returning it.
type Reader struct {
	file     string
	lines    *strictjson.Lines
	line     int // lines read so far: lines.Line() after each read
	header   Header
	end      RunEnd
	ended    bool
	latest   Time // the latest time of any event so far
	latestAt int  // its line
	err      error
}

// NewReader reads the header from r and returns a Reader positioned at
// the first event. file names the input in errors ("history.jsonl"); empty
// means "history".
func NewReader(r io.Reader, file string) (*Reader, error) {
	rd := &Reader{file: file, lines: strictjson.NewLines(r, MaxLineBytes, "history"), latest: -1}
	text, err := rd.nextLine()
	if err == io.EOF {
		return nil, &LineError{File: file, Err: errors.New("empty input: the first line must be the header")}
	}
	if err != nil {
		return nil, err
	}
	typ, err := typeOf(text)
	switch {
	case err != nil:
		return nil, lineError(err, file, rd.line, text)
	case typ != TypeHeader:
		return nil, badf("type", "want %q on the first line, got %q", TypeHeader, typ).at(file, rd.line)
	}
	var w headerWire
	if err := strictjson.Unmarshal(text, &w, strictjson.NoNulls); err != nil {
		return nil, lineError(err, file, rd.line, text)
	}
	h, ferr := w.header()
	if ferr == nil {
		ferr = h.check()
	}
	if ferr != nil {
		return nil, ferr.at(file, rd.line)
	}
	rd.header = h
	return rd, nil
}

// Header returns the history's header.
func (r *Reader) Header() Header { return r.header }

// End returns the end record; it is valid once Next has returned io.EOF.
func (r *Reader) End() RunEnd { return r.end }

// Line returns the number of the line read last.
func (r *Reader) Line() int { return r.line }

// Next returns the next event, or io.EOF once the end record has been
// read. A file that stops without an end record was cut short: that is an
// error, never a clean end.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return nil, r.err
	}
	e, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return e, nil
}

func (r *Reader) next() (Event, error) {
	text, err := r.nextLine()
	switch {
	case err == io.EOF && r.ended:
		return nil, io.EOF
	case err == io.EOF:
		return nil, &LineError{File: r.file, Line: r.line,
			Err: fmt.Errorf("the history stops without an %q record: it was cut short", TypeEnd)}
	case err != nil:
		return nil, err
	case r.ended:
		return nil, badf("", "a record after the %q record", TypeEnd).at(r.file, r.line)
	}
	typ, err := typeOf(text)
	if err != nil {
		return nil, lineError(err, r.file, r.line, text)
	}
	if typ == TypeEnd {
		return r.readEnd(text)
	}
	decode, known := decoders[typ]
	if !known {
		if typ == TypeHeader {
			return nil, badf("type", "a second header: only the first line is a header").at(r.file, r.line)
		}
		return nil, badf("type", "unknown record type %q (want %s)", typ, typeList()).at(r.file, r.line)
	}
	e, err := decode(text)
	if err != nil {
		return nil, lineError(err, r.file, r.line, text)
	}
	if ferr := r.inRun(e); ferr != nil {
		return nil, ferr.at(r.file, r.line)
	}
	return e, nil
}

// inRun checks an event's values, and that its times lie in the run.
func (r *Reader) inRun(e Event) *fieldError {
	if ferr := e.check(); ferr != nil {
		return ferr
	}
	if ferr := r.knownHolder(e); ferr != nil {
		return ferr
	}
	earliest, latest := e.bounds()
	if earliest != Unknown && earliest < r.header.Start {
		return badf("", "time %d is before the header's start_ns %d", int64(earliest), int64(r.header.Start))
	}
	if latest > r.latest {
		r.latest, r.latestAt = latest, r.line
	}
	return nil
}

// knownHolder refuses a belief whose holder the header does not list
// among its holders: a typo or a record from another run, which P1 would
// otherwise judge as a grant of its own. A header that lists no holders
// names none to check against, and every belief is accepted.
func (r *Reader) knownHolder(e Event) *fieldError {
	b, ok := e.(*BeliefInterval)
	if !ok || len(r.header.Holders) == 0 || slices.Contains(r.header.Holders, b.Holder) {
		return nil
	}
	return badf("holder", "%q is not among the header's holders (%s)", b.Holder, strings.Join(r.header.Holders, ", "))
}

// readEnd reads the end record.
func (r *Reader) readEnd(text []byte) (Event, error) {
	var w endWire
	if err := strictjson.Unmarshal(text, &w, strictjson.NoNulls); err != nil {
		return nil, lineError(err, r.file, r.line, text)
	}
	end, ferr := w.end()
	if ferr == nil {
		ferr = end.check(&r.header)
	}
	if ferr == nil && end.At < r.latest {
		ferr = badf("at_ns", "%d is before %d, a time on line %d", int64(end.At), int64(r.latest), r.latestAt)
	}
	if ferr != nil {
		return nil, ferr.at(r.file, r.line)
	}
	r.end, r.ended = end, true
	return r.next()
}

// decoders read each event type from its line.
var decoders = map[Type]func([]byte) (Event, error){
	TypeOperation:   decode[operationWire],
	TypeBelief:      decode[beliefWire],
	TypeAction:      decode[actionWire],
	TypeWrite:       decode[writeWire],
	TypeCheckpoint:  decode[checkpointWire],
	TypeUnit:        decode[unitWire],
	TypeEffect:      decode[effectWire],
	TypeSighting:    decode[sightingWire],
	TypeFault:       decode[faultWire],
	TypeTask:        decode[taskWire],
	TypePremise:     decode[premiseWire],
	TypeLeader:      decode[leaderWire],
	TypeDeclaration: decode[declarationWire],
}

// eventTypes are the event types in the order messages list them.
var eventTypes = []Type{TypeOperation, TypeBelief, TypeAction, TypeWrite, TypeCheckpoint, TypeUnit,
	TypeEffect, TypeSighting, TypeFault, TypeTask, TypePremise, TypeLeader, TypeDeclaration, TypeEnd}

func typeList() string {
	q := make([]string, len(eventTypes))
	for i, t := range eventTypes {
		q[i] = fmt.Sprintf("%q", t)
	}
	return strings.Join(q, ", ")
}

// decode reads a line into wire form W strictly and converts it.
func decode[W any, PW interface {
	*W
	event() (Event, *fieldError)
}](text []byte) (Event, error) {
	var w W
	if err := strictjson.Unmarshal(text, &w, strictjson.NoNulls); err != nil {
		return nil, err
	}
	e, ferr := PW(&w).event()
	if ferr != nil {
		return nil, ferr
	}
	return e, nil
}

// typeOf reads a line's "type". The line must be one JSON object with no
// duplicate fields and nothing after it; its other fields are left for
// the strict decoding that follows. A line as the Writer writes it starts
// with its type, which is read without decoding the line twice: the strict
// decoding still checks the whole line, and a second "type" in it.
func typeOf(text []byte) (Type, error) {
	const prefix = `{"type":"`
	if rest, ok := bytes.CutPrefix(text, []byte(prefix)); ok {
		if end := bytes.IndexByte(rest, '"'); end > 0 && bytes.IndexByte(rest[:end], '\\') < 0 {
			if _, known := decoders[Type(rest[:end])]; known || Type(rest[:end]) == TypeEnd {
				return Type(rest[:end]), nil
			}
		}
	}
	var t struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(text, &t); err != nil {
		return "", err
	}
	if t.Type == nil {
		return "", badf("type", "missing (want %q or %s)", TypeHeader, typeList())
	}
	return Type(*t.Type), nil
}

// nextLine returns the next line that is not blank, or io.EOF; a line
// over the limit is a *LineError.
func (r *Reader) nextLine() ([]byte, error) {
	text, err := r.lines.Next()
	r.line = r.lines.Line()
	if tooLong, ok := err.(*strictjson.TooLongError); ok {
		return nil, &LineError{File: r.file, Line: tooLong.Line, Err: tooLong}
	}
	return text, err
}

// lineError turns what went wrong with one line into a *LineError: a
// *fieldError from the checks, or a located error of the JSON decoder.
func lineError(err error, file string, line int, text []byte) *LineError {
	var fe *fieldError
	if errors.As(err, &fe) {
		return fe.at(file, line)
	}
	le := &LineError{File: file, Line: line, Err: err}
	var je *strictjson.Error
	if errors.As(strictjson.Explain(text, err), &je) {
		le.Field, le.Err = je.Path, je.Err
		if je.Path == "" || je.Syntax {
			_, le.Column = strictjson.Locate(text, je.Offset)
		}
	}
	return le
}
