package strictjson

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLinesSkipBlankLinesAndCountThem(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		want      []string
		wantLines []int // Line after each returned line
	}{
		{"plain", "{}\n{\"a\":1}\n", []string{"{}", `{"a":1}`}, []int{1, 2}},
		{"blank lines", "\n  \n{}\n\t\n\n{}", []string{"{}", "{}"}, []int{3, 6}},
		{"crlf", "{}\r\n\r\n{}\r\n", []string{"{}", "{}"}, []int{1, 3}},
		{"empty", "", nil, nil},
		{"only blanks", "\n \n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLines(strings.NewReader(tt.in), 64, "x")
			var got []string
			var lines []int
			for {
				text, err := l.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				got, lines = append(got, string(text)), append(lines, l.Line())
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantLines, lines)
			_, err := l.Next()
			assert.Equal(t, io.EOF, err, "the end stays the end")
		})
	}
}

func TestLinesRefuseALineOverTheLimit(t *testing.T) {
	l := NewLines(strings.NewReader("{}\n\n"+strings.Repeat("x", 65)+"\n{}\n"), 64, "x")
	_, err := l.Next()
	require.NoError(t, err)
	_, err = l.Next()
	var tooLong *TooLongError
	require.ErrorAs(t, err, &tooLong)
	assert.Equal(t, TooLongError{Line: 3, Limit: 64}, *tooLong)
	assert.EqualError(t, err, "longer than the limit of 64 bytes")
	assert.Equal(t, 2, l.Line(), "the long line is not counted as read")
}

func TestLinesAcceptALineThatFitsWithItsNewline(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		tooLong bool
	}{
		{"limit-1 bytes and newline", strings.Repeat("x", 63) + "\n", false},
		{"limit-1 bytes at the end", strings.Repeat("x", 63), false},
		{"limit bytes and newline", strings.Repeat("x", 64) + "\n", true},
		{"limit bytes at the end", strings.Repeat("x", 64), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := NewLines(strings.NewReader(tt.in), 64, "x").Next()
			if tt.tooLong {
				var tooLong *TooLongError
				require.ErrorAs(t, err, &tooLong)
				return
			}
			require.NoError(t, err)
			assert.Len(t, text, 63)
		})
	}
}

func TestLinesWrapReadErrorsWithTheLine(t *testing.T) {
	l := NewLines(io.MultiReader(strings.NewReader("{}\n"), iotest.ErrReader(errors.New("disk on fire"))), 64, "history")
	_, err := l.Next()
	require.NoError(t, err)
	_, err = l.Next()
	require.EqualError(t, err, "history: reading line 2: disk on fire")
	var tooLong *TooLongError
	assert.NotErrorAs(t, err, &tooLong, "an I/O error is not a bad line")
}
