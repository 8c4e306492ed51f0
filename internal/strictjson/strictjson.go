// Package strictjson is the one strict JSON decoder of leasesim, on
// github.com/go-json-experiment/json: unknown fields, duplicate fields,
// case-insensitive matches, wrong types, invalid UTF-8 and trailing data
// are rejected, null is rejected where the Go value cannot be absent, and
// every error is located: a byte offset, the JSON path of the value
// ("events[1].drift") and what is wrong, worded for a person ("want an
// integer, got a string"). The history reader, the fault schedule parser
// and the workload reader all decode through it. The two JSON-lines
// readers (history, workload) also share its line scanner (Lines) and its
// error for one field (FieldError); each turns them into its own LineError.
package strictjson

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Nulls says where a JSON null is accepted.
type Nulls int

const (
	// NoNulls rejects null everywhere: a value is given or left out.
	NoNulls Nulls = iota
	// NullForOptional accepts null for a pointer, a slice or a map (it
	// reads as nil) and rejects it for anything else.
	NullForOptional
)

// Unmarshal decodes the JSON document data into v strictly. An error
// about the content is an *Error; Locate turns its offset into a line
// and a column.
func Unmarshal(data []byte, v any, nulls Nulls) error {
	return unmarshal(data, v, nulls, json.RejectUnknownMembers(true))
}

// UnmarshalNanos is Unmarshal for a document that writes a time.Duration
// as its integer nanoseconds, as encoding/json does: simrun's summaries
// and run files (their fields end in _ns).
func UnmarshalNanos(data []byte, v any, nulls Nulls) error {
	return unmarshal(data, v, nulls, json.RejectUnknownMembers(true), jsonv1.FormatDurationAsNano(true))
}

func unmarshal(data []byte, v any, nulls Nulls, opts ...json.Options) error {
	var err error
	if hasNull(data) {
		err = json.Unmarshal(data, v, append(opts,
			json.WithUnmarshalers(json.UnmarshalFromFunc(func(dec *jsontext.Decoder, v any) error {
				return rejectNull(dec, v, nulls)
			})))...)
	} else {
		// Without a null to judge, the per-value hook is not needed: it
		// costs about a third of the decoding.
		err = json.Unmarshal(data, v, opts...)
	}
	if err == nil {
		return nil
	}
	return Explain(data, err)
}

// hasNull reports whether data may hold a JSON null: an 'n' outside
// strings (no other literal or number has one). A false positive, in
// malformed input, only costs the slower decoding.
func hasNull(data []byte) bool {
	inString := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == 'n':
			return true
		}
	}
	return false
}

// rejectNull refuses a null the Go value cannot hold as absent; anything
// else goes to the library's own decoding.
func rejectNull(dec *jsontext.Decoder, v any, nulls Nulls) error {
	if dec.PeekKind() != 'n' {
		return errors.ErrUnsupported
	}
	t := reflect.TypeOf(v).Elem()
	if nulls == NullForOptional {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			return errors.ErrUnsupported
		}
	}
	off := dec.InputOffset() + int64(len(dec.UnreadBuffer())-len(trimSpace(dec.UnreadBuffer())))
	// StackPointer names the last value read: inside an object, the
	// member whose value comes next; inside an array, the array itself or
	// its previous element. Point at the element that comes next.
	ptr := dec.StackPointer()
	if kind, n := dec.StackIndex(dec.StackDepth()); kind == '[' {
		if n > 0 {
			ptr = ptr.Parent()
		}
		ptr = ptr.AppendToken(strconv.FormatInt(n, 10))
	}
	return &Error{Offset: off, Path: Path(ptr), Err: fmt.Errorf("want %s, got null", Want(t))}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n' || b[0] == ':' || b[0] == ',') {
		b = b[1:]
	}
	return b
}

// Error is a located decoding error.
type Error struct {
	// Offset is the byte offset in the input at or after which the error
	// lies.
	Offset int64
	// Path is the JSON path of the value ("events[1].drift"), empty for
	// the document itself.
	Path string
	// Err says what is wrong.
	Err error
	// Syntax is set when the input is not JSON at all (as opposed to JSON
	// that does not fit the Go value).
	Syntax bool
}

// Error formats the error as "path: what".
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

// Unwrap returns what is wrong.
func (e *Error) Unwrap() error { return e.Err }

// Explain turns an error of the JSON library about data into an *Error;
// any other error is returned unchanged.
func Explain(data []byte, err error) error {
	var own *Error
	var se *jsontext.SyntacticError
	var me *json.SemanticError
	switch {
	case errors.As(err, &own):
		return own
	case errors.As(err, &se):
		if trailingComma(data, se.ByteOffset) {
			return &Error{Offset: se.ByteOffset, Path: Path(se.JSONPointer),
				Err: errors.New("a comma before the closing bracket or brace"), Syntax: true}
		}
		return &Error{Offset: se.ByteOffset, Path: Path(se.JSONPointer), Err: syntaxText(se.Err), Syntax: true}
	case errors.As(err, &me):
		if errors.As(me.Err, &own) { // from rejectNull, through the library
			return own
		}
		return &Error{Offset: me.ByteOffset, Path: Path(me.JSONPointer), Err: semanticText(me)}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Offset: -1, Err: errors.New("unexpected end of JSON input"), Syntax: true}
	}
	return err
}

// trailingComma reports whether data has a comma at off that only
// whitespace separates from a closing brace or bracket: the library then
// says "invalid character ',' at start of value", which hides the mistake.
func trailingComma(data []byte, off int64) bool {
	if off < 0 || off >= int64(len(data)) || data[off] != ',' {
		return false
	}
	rest := strings.TrimLeft(string(data[off+1:min(int64(len(data)), off+1+64)]), " \t\r\n")
	return rest != "" && (rest[0] == '}' || rest[0] == ']')
}

// Locate returns the line and the column (both from 1; the column counts
// characters) of byte offset off in data; a negative offset is the end.
func Locate(data []byte, off int64) (line, col int) {
	if off < 0 || off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = 1
	start := 0
	for i, c := range before {
		if c == '\n' {
			line++
			start = i + 1
		}
	}
	return line, 1 + utf8.RuneCount(before[start:])
}

// Path turns a JSON pointer such as "/events/1/drift" into the path
// "events[1].drift". A token of digits is taken as an array index.
func Path(p jsontext.Pointer) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		if _, err := strconv.ParseUint(tok, 10, 64); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// syntaxText words a syntax error without the library's prefix.
func syntaxText(err error) error {
	switch {
	case errors.Is(err, jsontext.ErrDuplicateName):
		return errors.New("duplicate field")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("unexpected end of JSON input")
	case err == nil:
		return errors.New("invalid JSON")
	}
	return err
}

// semanticText words a type mismatch as "want an integer, got a string".
func semanticText(e *json.SemanticError) error {
	switch {
	case errors.Is(e.Err, json.ErrUnknownName):
		return errors.New("unknown field")
	case e.GoType != nil && hasOwnDecoder(e.GoType) && e.Err != nil:
		return e.Err // the type's own message, such as a duration's
	}
	want := "another value"
	if e.GoType != nil {
		want = Want(e.GoType)
	}
	if e.Err != nil && strings.Contains(e.Err.Error(), "out of range") {
		return fmt.Errorf("%s is out of range for %s", e.JSONValue, want)
	}
	if got := describeJSON(e.JSONKind, e.JSONValue); got != "" {
		return fmt.Errorf("want %s, got %s", want, got)
	}
	if e.Err != nil {
		return fmt.Errorf("want %s: %w", want, e.Err)
	}
	return fmt.Errorf("want %s", want)
}

var (
	v1Unmarshaler   = reflect.TypeFor[interface{ UnmarshalJSON([]byte) error }]()
	v2Unmarshaler   = reflect.TypeFor[json.UnmarshalerFrom]()
	textUnmarshaler = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
)

// hasOwnDecoder reports whether t decodes itself.
func hasOwnDecoder(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(v1Unmarshaler) || p.Implements(v2Unmarshaler) || p.Implements(textUnmarshaler)
}

// Want names the JSON a Go type is read from: "an integer", "a string".
func Want(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// describeJSON names a JSON value by its kind, with the value itself for a
// number.
func describeJSON(k jsontext.Kind, v jsontext.Value) string {
	switch k {
	case '"':
		return "a string"
	case '0':
		if len(v) > 0 {
			return "number " + string(v)
		}
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return ""
}
