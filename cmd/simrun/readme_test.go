package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// A README command is a line of a fenced code block that starts with one of
// these (after an optional "$ " prompt and environment assignments).
var readmeCommand = regexp.MustCompile(`^(?:[A-Z][A-Z0-9_]*=\S+ +)*(?:bin/simrun|go (?:test|run|doc)|make)(?:\s|$)`)

// readmeLongMake are the make targets the README shows that run for minutes
// and that CI runs on its own (make test is the suite this test is part
// of); their lines are not run here, but the targets must exist.
var readmeLongMake = map[string]bool{"run": true, "test": true, "bench": true, "fuzz": true, "tune-example": true,
	"etcd-stories": true}

// readmeBlock is one fenced code block of README.md.
type readmeBlock struct {
	file  string // the file it is in, relative to the module root
	lang  string // the word after the opening fence: "go", "json" or ""
	line  int    // the line number of its first line
	lines []string
}

// readmeCmd is one command of a code block, as printed: several lines when
// they end in a backslash.
type readmeCmd struct {
	file    string // the file it is in, relative to the module root
	text    string // what sh -c runs, comment included
	line    int    // README line number
	comment string // what follows " #", if anything
	want    []string
}

// TestReadmeCommands runs every command README.md shows in a fenced code
// block, exactly as printed, with sh -c, block after block in one
// directory, as a user pastes them: bin/simrun lines from a directory that
// holds the freshly built CLI as bin/simrun and the repository's files
// (examples/, cmd/...) as the README assumes, go test and go doc lines from
// the module root. Each exits as its line says (0 unless a comment says
// "exit N") and does what its comment says: JSON on stdout is one object,
// --out and -o write what they name, a replay confirms the trace hash, a go
// test line runs the number of seeds its comment or LEASESIM_SEEDS states,
// and a transcript's shown lines appear in the real output. The make targets
// the README names exist, the long ones (make run, test, bench, fuzz,
// tune-example) are left to CI, the README's JSON schedule is accepted by
// run --schedule, and its Go example is the test the go test lines run. A
// shell script block (```sh) is pasted whole: it runs with sh -e in the
// same directory, without the network (GOPROXY=off: the module cache that
// building leasesim filled must do), and must succeed. The replay line a
// shrink prints runs as printed too, and reproduces the violation.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of README.md (about two minutes); make test runs it without -short")
	}
	t.Parallel() // a long test: it overlaps the other long ones
	if runtime.GOOS == "windows" {
		t.Skip("needs a POSIX shell")
	}
	root := repoRoot(t)
	var docs []readmeDoc
	for _, name := range readmeFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		docs = append(docs, readmeDoc{name: name, text: string(text)})
	}
	ran := checkReadme(t, root, docs...)
	assert.GreaterOrEqual(t, ran, 20, "the README's commands were found")
}

// readmeDoc is one Markdown file whose commands run: README.md or a guide
// in docs/.
type readmeDoc struct{ name, text string }

// readmeFiles are the files whose commands TestReadmeCommands runs, in
// order: README.md, then the guides in docs/ (the decision records show no
// commands to run).
func readmeFiles(t *testing.T, root string) []string {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	files := []string{"README.md"}
	for _, g := range guides {
		files = append(files, filepath.Join("docs", filepath.Base(g)))
	}
	return files
}

// checkReadme runs and checks the commands of docs, in order, as
// TestReadmeCommands describes, and returns how many ran. A command
// printed in two files runs once.
func checkReadme(t *testing.T, root string, docs ...readmeDoc) int {
	t.Helper()
	dir := workDir(t)
	linkRepo(t, root, dir)
	// The user's recorded lease event log, which workload from-events reads.
	recordLeaseEvents(t, filepath.Join(dir, "lease-events.jsonl"))

	start := time.Now()
	ran := 0
	seen := map[string]bool{}
	for _, doc := range docs {
		ran += checkReadmeDoc(t, root, dir, doc, seen)
	}
	t.Logf("%d README commands in %s", ran, time.Since(start).Round(time.Second))
	return ran
}

// checkReadmeDoc runs and checks the commands of one file, in dir, except
// those seen already, and returns how many ran.
func checkReadmeDoc(t *testing.T, root, dir string, doc readmeDoc, seen map[string]bool) int {
	t.Helper()
	blocks := fencedBlocks(doc.text)
	for i := range blocks {
		blocks[i].file = doc.name
	}
	checkMakeTargets(t, root, doc.text)
	ran := 0
	for _, b := range blocks {
		switch b.lang {
		case "go":
			checkGoExample(t, root, b)
			continue
		case "json":
			checkScheduleBlock(t, dir, b)
			continue
		case "sh":
			ran++
			runReadmeScript(t, dir, b)
			continue
		case "":
		default:
			t.Fatalf("%s:%d: a code block in %q: teach TestReadmeCommands what to do with it", b.file, b.line, b.lang)
		}
		for _, c := range blockCommands(t, b) {
			if m := regexp.MustCompile(`^make (\S+)`).FindStringSubmatch(c.text); m != nil && readmeLongMake[m[1]] {
				continue
			}
			key := commandKey(c)
			if seen[key] {
				continue
			}
			seen[key] = true
			ran++
			runReadmeCommand(t, root, dir, c)
		}
	}
	// The go doc lines of the prose run too: they are cheap and name real
	// packages and symbols.
	for _, m := range regexp.MustCompile("`(go doc [^`]+)`").FindAllStringSubmatch(doc.text, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			ran++
			runReadmeCommand(t, root, dir, readmeCmd{text: m[1], file: doc.name})
		}
	}
	return ran
}

// fencedBlocks returns README's fenced code blocks in order.
func fencedBlocks(readme string) []readmeBlock {
	var blocks []readmeBlock
	var cur *readmeBlock
	for i, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(line, "```") {
			if cur == nil {
				cur = &readmeBlock{lang: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: i + 2}
			} else {
				blocks = append(blocks, *cur)
				cur = nil
			}
			continue
		}
		if cur != nil {
			cur.lines = append(cur.lines, line)
		}
	}
	return blocks
}

// blockCommands returns a block's commands. In a transcript (lines starting
// with "$ ") the commands are the prompted lines, and the lines after each,
// except "...", are output it must print.
func blockCommands(t *testing.T, b readmeBlock) []readmeCmd {
	t.Helper()
	transcript := false
	for _, l := range b.lines {
		transcript = transcript || strings.HasPrefix(l, "$ ")
	}
	var cmds []readmeCmd
	for i := 0; i < len(b.lines); i++ {
		l, n := b.lines[i], b.line+i
		if transcript {
			if after, ok := strings.CutPrefix(l, "$ "); ok {
				cmds = append(cmds, readmeCmd{file: b.file, text: after, line: n})
			} else if len(cmds) > 0 && strings.TrimSpace(l) != "" && strings.TrimSpace(l) != "..." {
				cmds[len(cmds)-1].want = append(cmds[len(cmds)-1].want, strings.Join(strings.Fields(l), " "))
			}
			continue
		}
		require.False(t, strings.HasPrefix(l, "simrun "),
			"%s:%d: %q does not run as pasted (simrun is not on PATH; the README builds bin/simrun)", b.file, n, l)
		if !readmeCommand.MatchString(l) {
			continue // a comment, data or output
		}
		text := l
		for strings.HasSuffix(l, `\`) && i+1 < len(b.lines) {
			i++
			l = b.lines[i]
			text += "\n" + l
		}
		c := readmeCmd{file: b.file, text: text, line: n}
		if k := strings.Index(l, " #"); k >= 0 {
			c.comment = strings.TrimSpace(l[k+2:])
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// commandKey is what a command runs, without its comment and with its
// white space folded: the same command with another comment is the same
// command, and runs once.
func commandKey(c readmeCmd) string {
	text := c.text
	if c.comment != "" {
		lines := strings.Split(text, "\n")
		last := lines[len(lines)-1]
		if k := strings.Index(last, " #"); k >= 0 {
			lines[len(lines)-1] = last[:k]
		}
		text = strings.Join(lines, "\n")
	}
	return strings.Join(strings.Fields(text), " ")
}

// exitWanted is the exit code a command's comment states, 0 by default.
func exitWanted(t *testing.T, c readmeCmd) int {
	t.Helper()
	m := regexp.MustCompile(`\bexit (\d+)\b`).FindStringSubmatch(c.comment)
	if m == nil {
		return exitOK
	}
	code, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	return code
}

// runReadmeCommand runs c with sh -c and checks that it exits as its line
// says and does what its comment says.
func runReadmeCommand(t *testing.T, root, dir string, c readmeCmd) {
	t.Helper()
	where := c.file + ":" + strconv.Itoa(c.line) + ": " + c.text
	words := strings.Fields(c.text)
	for len(words) > 0 && strings.Contains(words[0], "=") {
		words = words[1:] // environment assignments
	}
	require.NotEmpty(t, words, where)
	cwd, env := dir, readmeEnv()
	if words[0] != "bin/simrun" {
		cwd = root // go test, go doc and make lines run from the module root
	}
	if words[0] == "go" && words[1] == "test" {
		// Run, not cached, and verbose, so that the seeds that ran can be
		// counted; the line itself is run as printed.
		env = append(env, "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -count=1 -v"))
	}
	cmd := exec.Command("sh", "-c", c.text)
	cmd.Dir, cmd.Env = cwd, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err, where)
	}
	out := stdout.String() + stderr.String()
	t.Logf("%5.1fs %5.1fs cpu exit %d  %s", time.Since(began).Seconds(), cpuSeconds(cmd.ProcessState), code,
		strings.ReplaceAll(c.text, "\\\n", ""))
	require.Equal(t, exitWanted(t, c), code, "%s\nexit %d:\n%s", where, code, tail(out))

	flat := strings.Join(strings.Fields(out), " ")
	for _, w := range c.want {
		assert.Contains(t, flat, w, "%s prints what the README shows", where)
	}
	redirect := flagValue(words, ">")
	if slices.Contains(words, "--json") {
		if redirect == "" {
			assertOneJSONObject(t, stdout.Bytes(), where)
		} else {
			data, err := os.ReadFile(filepath.Join(cwd, redirect))
			require.NoError(t, err, where)
			assertOneJSONObject(t, data, where)
		}
	}
	if d := flagValue(words, "--out"); d != "" {
		assert.DirExists(t, filepath.Join(cwd, d), where)
		for _, f := range regexp.MustCompile(`[\w.-]+\.(?:html|json|jsonl)\b`).FindAllString(c.comment, -1) {
			assert.FileExists(t, filepath.Join(cwd, d, f), "%s: the comment names %s", where, f)
		}
	}
	if f := flagValue(words, "-o"); f != "" {
		assert.FileExists(t, filepath.Join(cwd, f), where)
	}
	if len(words) > 1 && words[0] == "bin/simrun" {
		switch words[1] {
		case "replay":
			assert.Contains(t, out, "identical", "%s confirms the trace hash", where)
		case "shrink":
			if m := regexp.MustCompile(`(?m)^replay: (bin/simrun .+)$`).FindStringSubmatch(out); m != nil {
				runReadmeCommand(t, root, dir, readmeCmd{text: m[1], line: c.line, comment: "exit 1: the replay line it printed"})
			}
		case "list":
			if flagValue(words, "--pkg") != "" {
				assert.Contains(t, out, "Scenarios of ", "%s lists the package's scenarios", where)
				break
			}
			if impl := flagValue(words, "--impl"); impl != "" {
				assert.Contains(t, out, "Scenarios of "+impl, "%s lists the implementation's scenarios", where)
				break
			}
			for _, name := range scenarios.Names() {
				assert.Contains(t, out, name, "%s lists the scenarios", where)
			}
			assert.Contains(t, out, "mutant/", "%s lists the implementations", where)
		case "sweep":
			if slices.Contains(words, "--verify-determinism") {
				assert.Contains(t, out, "trace hashes identical", "%s says the runs were deterministic", where)
			}
		}
	}
	if words[0] == "go" && words[1] == "test" {
		checkGoTestSeeds(t, c, words, out, where)
	}
}

// checkGoTestSeeds checks that a go test line ran its test, and as many
// seeds as its comment or LEASESIM_SEEDS says.
func checkGoTestSeeds(t *testing.T, c readmeCmd, words []string, out, where string) {
	t.Helper()
	assert.NotContains(t, out, "no tests to run", where)
	pattern := flagValue(words, "-run")
	require.NotEmpty(t, pattern, "%s: a go test line names its test", where)
	name := strings.Trim(strings.SplitN(strings.Trim(pattern, `'"`), "/", 2)[0], "^$")
	seeds := len(regexp.MustCompile(`(?m)^\s*--- PASS: `+regexp.QuoteMeta(name)+`/seed=\d+ `).FindAllString(out, -1))
	want := -1
	if m := regexp.MustCompile(`\b(\d+|one) seeds?\b`).FindStringSubmatch(c.comment); m != nil {
		want = 1
		if m[1] != "one" {
			want, _ = strconv.Atoi(m[1])
		}
	}
	if m := regexp.MustCompile(`\bLEASESIM_SEEDS=(\d+)-(\d+)\s`).FindStringSubmatch(c.text); m != nil {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		want = b - a + 1
	}
	if want >= 0 {
		assert.Equal(t, want, seeds, "%s: the seeds that ran", where)
	} else {
		assert.Positive(t, seeds, "%s: seeds ran", where)
	}
}

// checkMakeTargets checks that every make target the README names is a
// target of the Makefile.
func checkMakeTargets(t *testing.T, root, readme string) {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	targets := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][\w-]*):`).FindAllStringSubmatch(string(mk), -1) {
		targets[m[1]] = true
	}
	for _, m := range regexp.MustCompile("(?m)(?:`|^)make ([a-z][\\w-]*)").FindAllStringSubmatch(readme, -1) {
		assert.True(t, targets[m[1]], "README names make %s, which the Makefile lacks", m[1])
	}
}

// checkGoExample checks that the README's "add your own scenario" example
// is, word for word, the TestDoubleIsolation that its go test lines run.
// Other Go blocks (TestMyLeaseAgainstTheCatalog uses a package mylease the
// reader writes) are not compiled.
func checkGoExample(t *testing.T, root string, b readmeBlock) {
	t.Helper()
	src := strings.Join(b.lines, "\n")
	if strings.Contains(src, "func TestMyControllerSurvivesAPartition(") {
		// The client-go example is zoo/k8s/example_test.go from its imports on
		// (the zoo module's own test runs it; this keeps the copy equal).
		file, err := os.ReadFile(filepath.Join(root, "zoo", "k8s", "example_test.go"))
		require.NoError(t, err)
		fromImports := func(s string) string { return s[strings.Index(s, "import ("):] }
		assert.Equal(t, fromImports(string(file)), fromImports(src+"\n"),
			"%s:%d: the example is zoo/k8s/example_test.go", b.file, b.line)
		return
	}
	const fn = "func TestDoubleIsolation("
	if !strings.Contains(src, fn) {
		return
	}
	file, err := os.ReadFile(filepath.Join(root, "scenarios", "example_test.go"))
	require.NoError(t, err)
	body := func(s string) string {
		s = s[strings.Index(s, fn):]
		return s[:strings.Index(s, "\n}\n")+3]
	}
	assert.Equal(t, body(src+"\n"), body(string(file)),
		"%s:%d: the example is scenarios/example_test.go's TestDoubleIsolation", b.file, b.line)
}

// runReadmeScript runs a shell script block whole, as a user pastes it,
// from dir, with no network, and checks that it succeeds.
func runReadmeScript(t *testing.T, dir string, b readmeBlock) {
	t.Helper()
	cmd := exec.Command("sh", "-e", "-c", strings.Join(b.lines, "\n"))
	cmd.Dir, cmd.Env = dir, append(readmeEnv(), "GOPROXY=off")
	began := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("%5.1fs %5.1fs cpu %s:%d: the sh block of %d lines", time.Since(began).Seconds(), cpuSeconds(cmd.ProcessState),
		b.file, b.line, len(b.lines))
	require.NoError(t, err, "%s:%d: the sh block, run with sh -e:\n%s", b.file, b.line, tail(string(out)))
}

// cpuSeconds is the user and system CPU time a finished command and the
// children it waited for used, or 0 when it did not start: the measure of
// a line's cost that does not depend on how loaded the machine is.
func cpuSeconds(ps *os.ProcessState) float64 {
	if ps == nil {
		return 0
	}
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// checkScheduleBlock checks that the README's hand-written schedule runs.
func checkScheduleBlock(t *testing.T, dir string, b readmeBlock) {
	t.Helper()
	path := filepath.Join(dir, "readme-schedule.json")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(b.lines, "\n")), 0o644))
	code, out := shell(t, dir, "bin/simrun run --scenario kleppmann-gc-pause --seed 1 --schedule readme-schedule.json")
	assert.Contains(t, []int{exitOK, exitViolated}, code, "%s:%d: the schedule is accepted:\n%s", b.file, b.line, tail(out))
}

// linkRepo makes the repository's top-level files reachable from dir, as the
// README assumes it runs from the module root, except bin (dir has its own)
// and out (commands write there).
func linkRepo(t *testing.T, root, dir string) {
	t.Helper()
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		if name := e.Name(); !strings.HasPrefix(name, ".") && name != "bin" && name != "out" {
			require.NoError(t, os.Symlink(filepath.Join(root, name), filepath.Join(dir, name)))
		}
	}
}

// recordLeaseEvents writes the lease observer's log of one run of a
// built-in scenario with workers to path, as a user would record one.
func recordLeaseEvents(t *testing.T, path string) {
	t.Helper()
	sc, err := scenarios.Lookup("worker-crash-handoff")
	require.NoError(t, err)
	var log bytes.Buffer
	obs := lease.NewJSONLinesObserver(&log)
	_, err = scenarios.Execute(sc, 1, scenarios.Options{Observer: obs})
	require.NoError(t, err)
	require.NoError(t, obs.Err())
	require.NoError(t, os.WriteFile(path, log.Bytes(), 0o644))
}

// readmeEnv is the environment without the variables that steer Go tests'
// seeds and shrinking, so that each line runs as printed.
func readmeEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name == "GOFLAGS" || strings.HasPrefix(name, "LEASESIM_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// assertOneJSONObject asserts that data is exactly one JSON object.
func assertOneJSONObject(t *testing.T, data []byte, where string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	var obj map[string]any
	if !assert.NoError(t, dec.Decode(&obj), "%s: a JSON object", where) {
		return
	}
	assert.ErrorIs(t, dec.Decode(&obj), io.EOF, "%s: exactly one JSON object", where)
}

// flagValue returns the word after name in words, unquoted, or "".
func flagValue(words []string, name string) string {
	for i, w := range words[:max(len(words)-1, 0)] {
		if w == name {
			return strings.Trim(words[i+1], `'"`)
		}
	}
	return ""
}

// tail returns the last lines of out, enough to see why a command failed.
func tail(out string) string {
	lines := strings.Split(out, "\n")
	return strings.Join(lines[max(len(lines)-40, 0):], "\n")
}

// The README parser finds commands, their continuation lines, comments and
// exit codes, and a transcript's expected output; it ignores output, data
// and comment lines.
func TestReadmeParsing(t *testing.T) {
	readme := "text `make build`\n" +
		"```\n$ bin/simrun run --seed 1\n...\nReplay     bin/simrun  run --seed 1\n```\n" +
		"```\n# a comment\nbin/simrun list      # names\nbin/simrun tune --ttl 2s \\\n    --seeds 1-3   # exit 1: it fails\n" +
		"LEASESIM_SEEDS=1-5 go test -run TestX ./pkg  # other seeds\n{\"type\":\"header\"}\nleasesim sweep  output\n```\n" +
		"```json\n{}\n```\n" + "```sh\ncat > x.go <<'EOF'\npackage x\nEOF\n```\n"
	blocks := fencedBlocks(readme)
	require.Len(t, blocks, 4)
	assert.Equal(t, []string{"", "", "json", "sh"}, []string{blocks[0].lang, blocks[1].lang, blocks[2].lang, blocks[3].lang})
	assert.Equal(t, []string{"cat > x.go <<'EOF'", "package x", "EOF"}, blocks[3].lines, "a script block is kept whole")
	assert.Equal(t, 3, blocks[0].line)

	transcript := blockCommands(t, blocks[0])
	require.Len(t, transcript, 1)
	assert.Equal(t, "bin/simrun run --seed 1", transcript[0].text)
	assert.Equal(t, []string{"Replay bin/simrun run --seed 1"}, transcript[0].want)

	cmds := blockCommands(t, blocks[1])
	tests := []struct {
		text, comment string
		line, exit    int
	}{
		{"bin/simrun list      # names", "names", 9, 0},
		{"bin/simrun tune --ttl 2s \\\n    --seeds 1-3   # exit 1: it fails", "exit 1: it fails", 10, 1},
		{"LEASESIM_SEEDS=1-5 go test -run TestX ./pkg  # other seeds", "other seeds", 12, 0},
	}
	require.Len(t, cmds, len(tests))
	for i, tt := range tests {
		assert.Equal(t, tt.text, cmds[i].text)
		assert.Equal(t, tt.comment, cmds[i].comment)
		assert.Equal(t, tt.line, cmds[i].line)
		assert.Equal(t, tt.exit, exitWanted(t, cmds[i]))
	}
	assert.Equal(t, "1-3", flagValue(strings.Fields(cmds[1].text), "--seeds"))
	assert.Empty(t, flagValue(strings.Fields(cmds[1].text), "--out"))
}

// A command printed twice with other comments or spacing runs once.
func TestReadmeCommandKey(t *testing.T) {
	a := readmeCmd{text: "bin/simrun sweep --seeds 1-100   # many seeds", comment: "many seeds"}
	b := readmeCmd{text: "bin/simrun sweep  --seeds 1-100 # many seeds, with a progress bar", comment: "many seeds, with a progress bar"}
	assert.Equal(t, "bin/simrun sweep --seeds 1-100", commandKey(a))
	assert.Equal(t, commandKey(a), commandKey(b))
	assert.NotEqual(t, commandKey(a), commandKey(readmeCmd{text: "bin/simrun sweep --seeds 1-50"}))
}

// repoRoot returns the repository's root, where README commands run: the
// directory of the core module's go.mod above the working directory.
// simrun is a module of its own (docs/decisions/0041), so
// repro.ModuleRoot, the nearest go.mod, is cmd/simrun.
func repoRoot(t *testing.T) string {
	t.Helper()
	zoo, err := zooDir("")
	require.NoError(t, err)
	require.NotEmpty(t, zoo, "no go.mod of %s above the working directory", coreModule)
	return filepath.Dir(zoo)
}
