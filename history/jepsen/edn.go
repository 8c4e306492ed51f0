package jepsen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// The subset of EDN (https://github.com/edn-format/edn) a Jepsen history.edn
// uses: maps, vectors, lists, sets, keywords, symbols, strings, integers,
// floats, nil, true, false, characters, comments, discards (#_) and tagged
// values (#jepsen.history.Op{...}: the tag is dropped). A value is nil,
// bool, int64, float64, string, Keyword, Symbol, []any (vector, list, set)
// or Map.

// Keyword is an EDN keyword, without its colon.
type Keyword string

// Symbol is an EDN symbol.
type Symbol string

// Map is an EDN map, its entries in the file's order.
type Map []MapEntry

// MapEntry is one key and value of a Map.
type MapEntry struct{ Key, Value any }

// Get returns the value of keyword k, and whether the map has it.
func (m Map) Get(k Keyword) (any, bool) {
	for _, e := range m {
		if kw, ok := e.Key.(Keyword); ok && kw == k {
			return e.Value, true
		}
	}
	return nil, false
}

// maxDepth bounds nesting, so that a hostile file cannot exhaust the stack.
const maxDepth = 64

// ednReader reads EDN values one after another, counting lines for errors.
type ednReader struct {
	r    *bufio.Reader
	line int
	// start is the line the last top-level form began on.
	start int
}

func newEDNReader(r io.Reader) *ednReader { return &ednReader{r: bufio.NewReader(r), line: 1} }

// errEOF is the end of the input between values.
var errEOF = errors.New("end of input")

func (e *ednReader) next() (rune, error) {
	c, _, err := e.r.ReadRune()
	if err == nil && c == '\n' {
		e.line++
	}
	return c, err
}

func (e *ednReader) unread(c rune) {
	_ = e.r.UnreadRune()
	if c == '\n' {
		e.line--
	}
}

// skip passes over whitespace, commas and comments, and returns the next
// rune.
func (e *ednReader) skip() (rune, error) {
	for {
		c, err := e.next()
		if err != nil {
			return 0, err
		}
		switch {
		case c == ',' || unicode.IsSpace(c):
		case c == ';':
			for c != '\n' {
				if c, err = e.next(); err != nil {
					return 0, err
				}
			}
		default:
			return c, nil
		}
	}
}

// value reads the next value; errEOF at the end of the input.
func (e *ednReader) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d", maxDepth)
	}
	c, err := e.skip()
	if err == io.EOF {
		return nil, errEOF
	}
	if err != nil {
		return nil, err
	}
	if depth == 0 {
		e.start = e.line
	}
	switch c {
	case '{':
		items, err := e.seq('}', depth)
		if err != nil {
			return nil, err
		}
		if len(items)%2 != 0 {
			return nil, errors.New("a map with an odd number of forms")
		}
		m := make(Map, 0, len(items)/2)
		for i := 0; i < len(items); i += 2 {
			m = append(m, MapEntry{items[i], items[i+1]})
		}
		return m, nil
	case '[':
		return e.seq(']', depth)
	case '(':
		return e.seq(')', depth)
	case ')', ']', '}':
		return nil, fmt.Errorf("unexpected %q", c)
	case '"':
		return e.str()
	case '\\':
		return e.char()
	case '#':
		return e.dispatch(depth)
	}
	e.unread(c)
	return e.atom()
}

// seq reads values up to close.
func (e *ednReader) seq(close rune, depth int) ([]any, error) {
	items := []any{}
	for {
		c, err := e.skip()
		if err != nil {
			return nil, fmt.Errorf("unclosed collection, want %q: %w", close, eofIs(err))
		}
		if c == close {
			return items, nil
		}
		e.unread(c)
		v, err := e.value(depth + 1)
		if err == errEOF {
			return nil, fmt.Errorf("unclosed collection, want %q", close)
		}
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
}

func eofIs(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// dispatch reads what follows '#': a set, a discard or a tagged value.
func (e *ednReader) dispatch(depth int) (any, error) {
	c, err := e.next()
	if err != nil {
		return nil, fmt.Errorf("a lone #: %w", eofIs(err))
	}
	switch {
	case c == '{':
		return e.seq('}', depth)
	case c == '_':
		if _, err := e.value(depth + 1); err != nil {
			return nil, fmt.Errorf("#_ discards nothing: %w", err)
		}
		return e.value(depth)
	case unicode.IsLetter(c):
		e.unread(c)
		if _, err := e.atom(); err != nil { // the tag
			return nil, err
		}
		v, err := e.value(depth + 1)
		if err == errEOF {
			return nil, errors.New("a tag with no value")
		}
		return v, err
	}
	return nil, fmt.Errorf("unknown dispatch #%c", c)
}

// str reads a string after its opening quote.
func (e *ednReader) str() (string, error) {
	var b strings.Builder
	for {
		c, err := e.next()
		if err != nil {
			return "", fmt.Errorf("unterminated string: %w", eofIs(err))
		}
		switch c {
		case '"':
			return b.String(), nil
		case '\\':
			c, err = e.next()
			if err != nil {
				return "", fmt.Errorf("unterminated string: %w", eofIs(err))
			}
			switch c {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'r':
				c = '\r'
			}
		}
		b.WriteRune(c)
	}
}

// char reads a character literal after its backslash.
func (e *ednReader) char() (string, error) {
	tok, err := e.token()
	if err != nil || tok == "" {
		return "", errors.New("an empty character literal")
	}
	return tok, nil
}

// token reads up to a delimiter.
func (e *ednReader) token() (string, error) {
	var b strings.Builder
	for {
		c, err := e.next()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		if unicode.IsSpace(c) || strings.ContainsRune(",;()[]{}\"", c) {
			e.unread(c)
			return b.String(), nil
		}
		b.WriteRune(c)
	}
}

// atom reads a keyword, number, nil, boolean or symbol.
func (e *ednReader) atom() (any, error) {
	tok, err := e.token()
	if err != nil {
		return nil, err
	}
	switch {
	case tok == "":
		return nil, errors.New("an empty form")
	case tok == "nil":
		return nil, nil
	case tok == "true", tok == "false":
		return tok == "true", nil
	case tok[0] == ':':
		if len(tok) == 1 {
			return nil, errors.New("a keyword with no name")
		}
		return Keyword(tok[1:]), nil
	case tok[0] >= '0' && tok[0] <= '9', (tok[0] == '-' || tok[0] == '+') && len(tok) > 1 && tok[1] >= '0' && tok[1] <= '9':
		n := strings.TrimSuffix(tok, "N")
		if i, err := strconv.ParseInt(n, 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(n, "M"), 64)
		if err != nil {
			return nil, fmt.Errorf("a number %q: %w", tok, err)
		}
		return f, nil
	}
	return Symbol(tok), nil
}
