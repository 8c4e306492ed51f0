package reports

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/leasesim/leasesim/checker"
)

// TextOptions says how the terminal summaries are written.
type TextOptions struct {
	// Color marks verdicts with ANSI colours: ok green, violated red,
	// unknown yellow. Set it only when the writer is a terminal.
	Color bool
}

// TextOptionsFor returns the options for writing to w: colour when w is a
// terminal (a character device) and the NO_COLOR convention
// (https://no-color.org) is not set.
func TextOptionsFor(w io.Writer) TextOptions {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return TextOptions{}
	}
	info, err := f.Stat()
	return TextOptions{Color: err == nil && info.Mode()&os.ModeCharDevice != 0}
}

// ANSI SGR codes.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiDim    = "\x1b[2m"
)

// paint wraps s in an ANSI code when colour is on.
func (o TextOptions) paint(code, s string) string {
	if !o.Color {
		return s
	}
	return code + s + ansiReset
}

// status formats a verdict, padded to width before colouring so columns
// line up either way.
func (o TextOptions) status(s checker.Status, width int) string {
	text := fmt.Sprintf("%-*s", width, strings.ToUpper(string(s)))
	switch s {
	case checker.OK:
		return o.paint(ansiGreen, text)
	case checker.Violated:
		return o.paint(ansiBold+ansiRed, text)
	case checker.NotApplicable:
		return text
	default:
		return o.paint(ansiYellow, text)
	}
}

// textWriter writes formatted lines and keeps the first error, so that a
// report's body reads as a sequence of lines rather than error checks.
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// result returns the first error, wrapped with what was being written.
func (t *textWriter) result(what string) error {
	if t.err != nil {
		return fmt.Errorf("reports: writing %s: %w", what, t.err)
	}
	return nil
}
