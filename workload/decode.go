package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// object is one JSON object's members in the order they appear, each with
// a flag saying whether a decoder has read it, so that what is left over
// can be reported as unknown. It is what every line of a workload is read
// into before its fields are decoded one by one: that way each error can
// name its field, and nothing is silently ignored.
type object struct {
	keys []string
	vals []json.RawMessage
	used []bool
}

// parseObject reads line as one JSON object. Duplicate keys, anything that
// is not an object and trailing data are rejected.
func parseObject(line []byte) (*object, *fieldError) {
	dec := json.NewDecoder(bytes.NewReader(line))
	syntax := func(err error) *fieldError {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			col := utf8.RuneCount(line[:min(int(se.Offset), len(line))])
			return badf("", "invalid JSON at column %d: %v", max(col, 1), se)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return badf("", "invalid JSON: unexpected end of line")
		}
		return badf("", "invalid JSON: %v", err)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, badf("", "want a JSON object, got %s", kindOf(line))
	}
	o := &object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, badf("", "invalid JSON: want a key, got %v", tok)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntax(err)
		}
		if o.index(key) >= 0 {
			return nil, badf(key, "appears twice")
		}
		o.keys, o.vals, o.used = append(o.keys, key), append(o.vals, raw), append(o.used, false)
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntax(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badf("", "invalid JSON: trailing data after the object")
	}
	return o, nil
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
func (o *object) get(key string) (json.RawMessage, bool) {
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
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, badf(key, "%v", err)
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
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, true, badf(key, "%v", err)
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
func quoteList(names []string) string {
	var b bytes.Buffer
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return b.String()
}
