package repro

import (
	"strings"
	"sync/atomic"
)

// program is how simrun lines name the CLI. The CLI sets it once at start
// to the path it was invoked as; library callers get "simrun" (the name
// `go install ./cmd/simrun` puts on PATH).
var program atomic.Value

// DefaultProgram is the program name used until SetProgram is called.
const DefaultProgram = "simrun"

// SetProgram records how the CLI was invoked (os.Args[0] as typed, such as
// "bin/simrun" or "./bin/simrun"), so that printed lines run as pasted from
// the same directory. An empty name restores DefaultProgram.
func SetProgram(name string) {
	if name == "" {
		name = DefaultProgram
	}
	program.Store(name)
}

// Program returns the name simrun lines start with.
func Program() string {
	if p, ok := program.Load().(string); ok {
		return p
	}
	return DefaultProgram
}

// Simrun returns the shell line that runs the CLI with args, each quoted
// for a POSIX shell where it needs quoting:
//
//	Simrun("run", "--scenario", "swarm", "--seed", "7") == "bin/simrun run --scenario swarm --seed 7"
func Simrun(args ...string) string {
	return Line(append([]string{Program()}, args...)...)
}

// Line joins words into one POSIX shell line, quoting each word that needs it.
func Line(words ...string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Quote(w))
	}
	return b.String()
}

// Quote quotes s for a POSIX shell when it needs quoting: single quotes,
// an embedded single quote closes the quoting, is escaped, and reopens it.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, needsQuote) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func needsQuote(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
}
