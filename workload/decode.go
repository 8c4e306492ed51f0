package workload

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/leasesim/leasesim/internal/strictjson"
)

// object is one JSON object's members in the order they appear, each with
// a flag saying whether a decoder has read it, so that what is left over
// can be reported as unknown. It is what every line of a workload is read
// into before its fields are decoded one by one: that way each error can
// name its field, and nothing is silently ignored. The JSON itself is
// read by go-json-experiment's jsontext (internal/strictjson words its
// errors), which rejects duplicate names, invalid UTF-8 and trailing data.
type object struct {
	keys  []string
	vals  []jsontext.Value
	used  []bool
	arena []byte // the values' bytes: the decoder's own buffer is reused
	ends  []int  // where each value ends in arena
	src   bytes.Buffer
	dec   *jsontext.Decoder
}

// parseObject reads line as one JSON object. Duplicate keys, anything that
// is not an object and trailing data are rejected.
func parseObject(line []byte) (*object, *fieldError) {
	o := &object{}
	return o, o.parse(line)
}

// parse reads line into o, reusing o's memory: one decoder per object,
// reset for each line.
func (o *object) parse(line []byte) *fieldError {
	o.keys, o.vals, o.used, o.arena, o.ends = o.keys[:0], o.vals[:0], o.used[:0], o.arena[:0], o.ends[:0]
	o.src.Reset()
	o.src.Write(line)
	if o.dec == nil {
		o.dec = jsontext.NewDecoder(&o.src)
	} else {
		o.dec.Reset(&o.src)
	}
	tok, err := o.dec.ReadToken()
	if err != nil {
		return syntaxError(line, err)
	}
	if tok.Kind() != '{' {
		return badf("", "want a JSON object, got %s", kindOf(line))
	}
	for {
		tok, err := o.dec.ReadToken() // a name, or the closing brace
		if err != nil {
			return syntaxError(line, err)
		}
		if tok.Kind() == '}' {
			break
		}
		name := tok.String() // before the next read voids tok
		val, err := o.dec.ReadValue()
		if err != nil {
			return syntaxError(line, err)
		}
		o.arena = append(o.arena, val...)
		o.keys, o.ends, o.used = append(o.keys, name), append(o.ends, len(o.arena)), append(o.used, false)
	}
	if rest := bytes.TrimLeft(o.dec.UnreadBuffer(), " \t\r\n"); len(rest) > 0 {
		return badf("", "invalid JSON at column %d: invalid character %q after the object",
			utf8.RuneCount(line[:len(line)-len(rest)])+1, rest[0])
	}
	start := 0
	for _, end := range o.ends {
		o.vals = append(o.vals, o.arena[start:end:end])
		start = end
	}
	return nil
}

// syntaxError words an error of the JSON decoder for the field it lies
// in, with the column: "units: appears twice", "invalid JSON at column
// 27: invalid character '}' at start of value".
func syntaxError(line []byte, err error) *fieldError {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return badf("", "invalid JSON: unexpected end of line")
	}
	var je *strictjson.Error
	if !errors.As(strictjson.Explain(line, err), &je) {
		return badf("", "invalid JSON: %v", err)
	}
	if errors.Is(err, jsontext.ErrDuplicateName) {
		return badf(je.Path, "appears twice")
	}
	_, col := strictjson.Locate(line, je.Offset)
	return &fieldError{Field: je.Path, Err: fmt.Errorf("invalid JSON at column %d: %w", col, je.Err)}
}

// unquote decodes a JSON string the decoder has read.
func unquote(raw []byte) (string, error) {
	b, err := jsontext.AppendUnquote(nil, raw)
	return string(b), err
}

// index returns the position of key, or -1.
func (o *object) index(key string) int {
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// get returns the raw value of key and marks it read.
func (o *object) get(key string) (jsontext.Value, bool) {
	i := o.index(key)
	if i < 0 {
		return nil, false
	}
	o.used[i] = true
	return o.vals[i], true
}

// has reports whether key is present, without marking it read.
func (o *object) has(key string) bool { return o.index(key) >= 0 }

// unknown reports the first member not in known, in the order of the line.
func (o *object) unknown(known ...string) *fieldError {
	for _, k := range o.keys {
		found := false
		for _, want := range known {
			if k == want {
				found = true
				break
			}
		}
		if !found {
			return badf(k, "unknown field (want one of %s)", quoteList(known))
		}
	}
	return nil
}

// kindOf names the JSON type of a raw value, for "want X, got Y" messages.
func kindOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// str decodes key as a string; present is false if it is missing.
func (o *object) str(key string) (s string, present bool, err *fieldError) {
	raw, ok := o.get(key)
	if !ok {
		return "", false, nil
	}
	if kindOf(raw) != "a string" {
		return "", true, badf(key, "want a string, got %s", kindOf(raw))
	}
	s, uerr := unquote(raw)
	if uerr != nil {
		return "", true, badf(key, "%v", uerr)
	}
	return s, true, nil
}

// integer decodes key as an integer.
func (o *object) integer(key string) (n int64, present bool, err *fieldError) {
	raw, ok := o.get(key)
	if !ok {
		return 0, false, nil
	}
	if kindOf(raw) != "a number" {
		return 0, true, badf(key, "want an integer, got %s", kindOf(raw))
	}
	n, perr := strconv.ParseInt(string(raw), 10, 64)
	if perr != nil {
		if errors.Is(perr, strconv.ErrRange) {
			return 0, true, badf(key, "%s is out of range", raw)
		}
		return 0, true, badf(key, "want an integer, got %s", raw)
	}
	return n, true, nil
}

// number decodes key as a finite number.
func (o *object) number(key string) (f float64, present bool, err *fieldError) {
	raw, ok := o.get(key)
	if !ok {
		return 0, false, nil
	}
	if kindOf(raw) != "a number" {
		return 0, true, badf(key, "want a number, got %s", kindOf(raw))
	}
	f, perr := strconv.ParseFloat(string(raw), 64)
	if perr != nil || math.IsInf(f, 0) {
		return 0, true, badf(key, "%s is out of range", raw)
	}
	return f, true, nil
}

// duration decodes key as a Go duration string such as "250ms".
func (o *object) duration(key string) (d time.Duration, present bool, err *fieldError) {
	raw, ok := o.get(key)
	if !ok {
		return 0, false, nil
	}
	if kindOf(raw) != "a string" {
		return 0, true, badf(key, `want a duration string such as "250ms", got %s`, kindOf(raw))
	}
	s, uerr := unquote(raw)
	if uerr != nil {
		return 0, true, badf(key, "%v", uerr)
	}
	d, perr := time.ParseDuration(s)
	if perr != nil {
		return 0, true, badf(key, "%v", perr)
	}
	return d, true, nil
}

// object decodes key as a nested object.
func (o *object) object(key string) (*object, *fieldError) {
	raw, ok := o.get(key)
	if !ok {
		return nil, nil
	}
	if kindOf(raw) != "an object" {
		return nil, badf(key, "want an object, got %s", kindOf(raw))
	}
	inner, err := parseObject(raw)
	return inner, under(key, err)
}

// quoteList formats names as `"a", "b" or "c"`.
func quoteList(names []string) string { return quoteJoin(names, " or ") }

// quoteJoin formats names as `"a", "b"` + last + `"c"`.
func quoteJoin(names []string, last string) string {
	var b bytes.Buffer
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			b.WriteString(last)
		default:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return b.String()
}
