package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// MaxInputBytes bounds the size of a schedule Parse reads.
const MaxInputBytes = 16 << 20

// Parse reads a schedule from its JSON form. It is strict: unknown or
// duplicate fields, a null where a value is needed, trailing data and type
// mismatches are rejected with a *ParseError that gives the line, the column
// and the JSON path, for example
//
//	faults: line 7, column 19: events[1].duration: time: invalid duration "5x"
//
// Parse does not validate the schedule against a set of nodes; call
// Validate (or Apply, which validates) for that.
func Parse(r io.Reader) (Schedule, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return Schedule{}, fmt.Errorf("faults: read schedule: %w", err)
	}
	if len(data) > MaxInputBytes {
		return Schedule{}, &ParseError{Line: 1, Column: 1,
			Err: fmt.Errorf("schedule is larger than %d bytes", MaxInputBytes)}
	}
	var j scheduleJSON
	if err := decodeStrict(data, &j); err != nil {
		return Schedule{}, err
	}
	return j.schedule(), nil
}

// decodeStrict decodes the JSON document data into v (a pointer to a wire
// struct). encoding/json gives no position for unknown fields or for errors
// from a field's own UnmarshalJSON, so the document is walked token by token
// instead: structs and slices are descended here, so every key and value has
// a position, and only leaves (strings, numbers, types with their own
// UnmarshalJSON such as sim.Duration and sim.Dist) go to encoding/json.
func decodeStrict(data []byte, v any) error {
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, including the offending one.
			return locate(data, int(se.Offset)-1, "", se)
		}
		return locate(data, 0, "", err)
	}
	d := &walker{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	return d.value(reflect.ValueOf(v).Elem(), "")
}

// walker decodes a syntactically valid document while tracking positions.
type walker struct {
	data []byte
	dec  *json.Decoder
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// next returns the offset of the next value or key, skipping the
// whitespace, colons and commas the decoder has not consumed yet.
func (d *walker) next() int {
	off := int(d.dec.InputOffset())
	for off < len(d.data) {
		switch d.data[off] {
		case ' ', '\t', '\r', '\n', ':', ',':
			off++
		default:
			return off
		}
	}
	return off
}

func (d *walker) value(v reflect.Value, path string) error {
	start := d.next()
	if start >= len(d.data) {
		return locate(d.data, start, path, errors.New("unexpected end of input"))
	}
	c := d.data[start]
	custom := v.Kind() != reflect.Pointer && reflect.PointerTo(v.Type()).Implements(unmarshalerType)
	switch {
	case c == 'n' && v.Kind() != reflect.Pointer && v.Kind() != reflect.Slice:
		return locate(d.data, start, path, fmt.Errorf("want %s, got null", want(v.Type())))
	case custom:
		return d.leaf(v, path, start)
	case v.Kind() == reflect.Struct:
		if c != '{' {
			return locate(d.data, start, path, fmt.Errorf("want an object, got %s", jsonType(c)))
		}
		return d.object(v, path)
	case v.Kind() == reflect.Slice && c == '[':
		return d.array(v, path)
	case v.Kind() == reflect.Pointer && c != 'n':
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.value(v.Elem(), path)
	}
	return d.leaf(v, path, start)
}

func (d *walker) leaf(v reflect.Value, path string, start int) error {
	err := d.dec.Decode(v.Addr().Interface())
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" && v.Kind() == reflect.Struct {
			path = join(path, te.Field) // inside a leaf with its own UnmarshalJSON
		}
		return locate(d.data, start, path, fmt.Errorf("want %s, got %s", want(te.Type), te.Value))
	}
	return locate(d.data, start, path, err)
}

func (d *walker) object(v reflect.Value, path string) error {
	if _, err := d.dec.Token(); err != nil { // '{'
		return locate(d.data, d.next(), path, err)
	}
	seen := make(map[string]bool)
	for d.dec.More() {
		at := d.next()
		tok, err := d.dec.Token()
		if err != nil {
			return locate(d.data, at, path, err)
		}
		key, _ := tok.(string)
		field := fieldByName(v, key)
		if !field.IsValid() {
			return locate(d.data, at, join(path, key), errors.New("unknown field"))
		}
		if seen[key] {
			return locate(d.data, at, join(path, key), errors.New("duplicate field"))
		}
		seen[key] = true
		if err := d.value(field, join(path, key)); err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != nil { // '}'
		return locate(d.data, d.next(), path, err)
	}
	return nil
}

func (d *walker) array(v reflect.Value, path string) error {
	if _, err := d.dec.Token(); err != nil { // '['
		return locate(d.data, d.next(), path, err)
	}
	v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	for i := 0; d.dec.More(); i++ {
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := d.value(elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
		v.Set(reflect.Append(v, elem))
	}
	if _, err := d.dec.Token(); err != nil { // ']'
		return locate(d.data, d.next(), path, err)
	}
	return nil
}

// fieldByName returns the field of struct v whose JSON name is exactly key.
// Unlike encoding/json it does not fall back to a case-insensitive match.
func fieldByName(v reflect.Value, key string) reflect.Value {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if f.IsExported() && name != "-" && name == key {
			return v.Field(i)
		}
	}
	return reflect.Value{}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// want describes the JSON a Go type is read from.
func want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
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

// jsonType names the JSON type of a value from its first byte.
func jsonType(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// locate builds a ParseError at byte offset off of data.
func locate(data []byte, off int, path string, err error) *ParseError {
	off = max(min(off, len(data)), 0)
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	lineStart := bytes.LastIndexByte(data[:off], '\n') + 1
	return &ParseError{Line: line, Column: 1 + utf8.RuneCount(data[lineStart:off]), Path: path, Err: err}
}
