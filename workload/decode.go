package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
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
	o := &object{}
	return o, o.parse(line)
}

// parse reads line into o, reusing o's memory. The line is validated as a
// whole first; the members are then split off by a small scanner that can
// rely on that, which spares the allocations of a json.Decoder per line.
func (o *object) parse(line []byte) *fieldError {
	o.keys, o.vals, o.used = o.keys[:0], o.vals[:0], o.used[:0]
	if !json.Valid(line) {
		var raw json.RawMessage
		err := json.Unmarshal(line, &raw)
		if err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
			return badf("", "invalid JSON: unexpected end of line")
		}
		return badf("", "invalid JSON: %v", err)
	}
	i := skipSpace(line, 0)
	if line[i] != '{' {
		return badf("", "want a JSON object, got %s", kindOf(line))
	}
	i = skipSpace(line, i+1)
	for line[i] != '}' {
		end := stringEnd(line, i)
		key, err := unquote(line[i:end])
		if err != nil {
			return badf("", "invalid JSON: %v", err)
		}
		i = skipSpace(line, skipSpace(line, end)+1) // past the colon
		vend := valueEnd(line, i)
		if o.index(key) >= 0 {
			return badf(key, "appears twice")
		}
		o.keys, o.vals, o.used = append(o.keys, key), append(o.vals, line[i:vend]), append(o.used, false)
		i = skipSpace(line, vend)
		if line[i] == ',' {
			i = skipSpace(line, i+1)
		}
	}
	return nil
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the value that starts at b[i], in
// a document known to be valid.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
		j++
	}
	return j
}

// unquote decodes a JSON string. The common case, plain UTF-8 without
// escapes, is a copy; anything else goes through encoding/json, which
// also replaces invalid UTF-8 as it always does.
func unquote(raw []byte) (string, error) {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return internKey(inner), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// internKey returns the field name b without allocating when it is one of
// the format's own.
func internKey(b []byte) string {
	for _, k := range allFields {
		if string(b) == k {
			return k
		}
	}
	return string(b)
}

// allFields are every field name of the format, for internKey.
var allFields = []string{"type", "at", "id", "units", "unit_time", "unit_time_dist", "worker", "duration",
	"spacing", "down", "kind", "min", "max", "alpha", "version", "name", "workers", "env", "latency", "loss",
	"gc_pause", "crash_per_hour", "restart_after", "per_minute", "p50", "p99"}

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
