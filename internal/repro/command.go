package repro

import (
	"path/filepath"
	"strings"
	"sync/atomic"
)

// program is how simrun lines name the CLI. The CLI sets it once at start
// to the path it was invoked as; library callers get "simrun" (the name
// `go install .` in cmd/simrun puts on PATH).
var program atomic.Value

// DefaultProgram is the program name used until SetProgram is called.
const DefaultProgram = "simrun"

// SetProgram records how the CLI was invoked (os.Args[0] as typed, such as
// "bin/simrun" or "./bin/simrun"), so that printed lines run as pasted from
// the same directory. An empty name restores DefaultProgram.
//
// A binary that `go run` built lives in a temporary directory that is gone
// once it exits, so for such a name ("/tmp/go-build.../exe/simrun") the
// lines say `go run .`, which runs from simrun's module root, cmd/simrun
// (simrun is a module of its own: `go run ./cmd/simrun` no longer runs
// from the repository's root).
func SetProgram(name string) {
	switch {
	case name == "":
		name = DefaultProgram
	case strings.Contains(name, "go-build") && filepath.Base(filepath.Dir(name)) == "exe":
		name = GoRunProgram
	}
	program.Store(name)
}

// GoRunProgram is how lines name the CLI when it runs under `go run`.
const GoRunProgram = "go run ."

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
	prefix := Program()
	if prefix != GoRunProgram {
		prefix = Quote(prefix)
	}
	if len(args) == 0 {
		return prefix
	}
	return prefix + " " + Line(args...)
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

// Piped returns the shell line that feeds input to line's standard input,
// for a command that read a file from "-": echo 'input' | line. input is
// one line (compact JSON, for example).
func Piped(input, line string) string {
	return "echo " + Quote(input) + " | " + line
}
