package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helpCase is one invocation of a command and the exit code it gives.
type helpCase struct {
	line string // as pasted into a shell in the work directory
	exit int
}

// TestHelpMatchesBehaviour: each command's help states its exit codes and
// what --out writes, and what it does agrees: every exit code the cases
// give is one the help states, every exit code 0-2 the help states is
// given by some case, and the files the cases' --out directories hold are
// exactly those the help names.
func TestHelpMatchesBehaviour(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command a few times (about 20 seconds)")
	}
	t.Parallel() // a long test: it overlaps the other long ones
	dir := workDir(t)
	root := repoRoot(t)
	linkRepo(t, root, dir)
	const kl = "--scenario kleppmann-gc-pause --seed 1"
	const mutant = "--impl mutant/unfenced-resource"
	for _, tc := range []struct {
		cmd   string
		cases []helpCase
	}{
		{"list", []helpCase{{"bin/simrun list", 0}, {"bin/simrun list --bogus", 2}}},
		{"run", []helpCase{
			{"bin/simrun run " + kl + " --out run-ok", 0},
			{"bin/simrun run " + kl + " " + mutant + " --out run-bad", 1},
			{"bin/simrun run " + kl + " --seed x", 2},
		}},
		{"replay", []helpCase{{"bin/simrun replay run-ok", 0}, {"bin/simrun replay run-bad", 1}, {"bin/simrun replay nowhere", 2}}},
		{"check", []helpCase{
			{"bin/simrun check run-ok/history.jsonl --out check-ok", 0},
			{"bin/simrun check run-bad/history.jsonl --out check-bad", 1},
			{"bin/simrun check cmd/simrun/testdata/check/malformed.jsonl", 2},
		}},
		{"shrink", []helpCase{
			{"bin/simrun shrink " + kl + " " + mutant + " --out shrunk", 0},
			{"bin/simrun shrink " + kl + " --out shrunk-none", 2},
		}},
		{"sweep", []helpCase{
			{"bin/simrun sweep --scenario kleppmann-gc-pause --seeds 1-2 --out sweep-ok --json > ok.json", 0},
			{"bin/simrun sweep --scenario kleppmann-gc-pause --seeds 1-2 " + mutant + " --out sweep-bad --json > bad.json", 1},
			{"bin/simrun sweep --seeds x", 2},
		}},
		{"merge", []helpCase{
			{"bin/simrun merge ok.json --out merge-ok", 0},
			{"bin/simrun merge bad.json --out merge-bad", 1},
			{"bin/simrun merge nowhere.json", 2},
		}},
		{"tune", []helpCase{
			{"bin/simrun tune --workload examples/steady-batch.jsonl --ttl 5s --renew ttl/3 --checkpoint 10u --seeds 1 --out tune-ok", 0},
			{"bin/simrun tune --workload examples/steady-batch.jsonl --ttl 5s --renew ttl/3 --checkpoint 10u --seeds 1 --impl mutant/early-grantor-expiry", 1},
			{"bin/simrun tune --workload examples/steady-batch.jsonl --ttl 1s --renew 2s --checkpoint 10u", 2},
		}},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			_, help := shell(t, dir, "bin/simrun "+tc.cmd+" --help")
			long, _, _ := strings.Cut(help, "\nUsage:")
			documented := helpExitCodes(long)
			require.NotEmpty(t, documented, "simrun %s --help states its exit codes:\n%s", tc.cmd, long)
			var seen []int
			var written []string
			for _, c := range tc.cases {
				code, out := shell(t, dir, c.line)
				require.Equal(t, c.exit, code, "%s\n%s", c.line, tail(out))
				assert.Contains(t, documented, code, "simrun %s --help states exit %d (%s)", tc.cmd, code, c.line)
				seen = append(seen, code)
				if out := flagValue(strings.Fields(c.line), "--out"); out != "" {
					written = append(written, filesIn(t, filepath.Join(dir, out))...)
				}
			}
			for _, code := range documented {
				if code <= exitUsage {
					assert.Contains(t, seen, code, "simrun %s --help states exit %d: a case gives it", tc.cmd, code)
				}
			}
			slices.Sort(written)
			assert.Equal(t, helpOutFiles(long), slices.Compact(written), "simrun %s --help names what --out writes", tc.cmd)
		})
	}
}

// helpExitCodes returns the exit codes an "Exit ..." sentence of a help
// text states ("Exit 0 when ...; 1 when ...; 2 for bad input"), sorted.
func helpExitCodes(help string) []int {
	var codes []int
	for _, para := range regexp.MustCompile(`(?s)Exit \d.*?(?:\n\n|$)`).FindAllString(help, -1) {
		for _, m := range regexp.MustCompile(`(?:\bExit |[;,] |\n)(\d) (?:when|for)\b`).FindAllStringSubmatch(para, -1) {
			n, _ := strconv.Atoi(m[1])
			codes = append(codes, n)
		}
	}
	slices.Sort(codes)
	return slices.Compact(codes)
}

// helpOutFiles returns the files and directories (with a trailing /) the
// help's "--out writes ..." sentence names, sorted, or nil.
func helpOutFiles(help string) []string {
	_, after, ok := strings.Cut(help, "--out writes ")
	if !ok {
		return nil
	}
	sentence := regexp.MustCompile(`(?s)^.*?(?:;|\.\s|\.$)`).FindString(after + " ")
	names := regexp.MustCompile(`[\w.-]+\.(?:json|jsonl|html)\b|\b[\w-]+/`).FindAllString(sentence, -1)
	slices.Sort(names)
	return slices.Compact(names)
}

// filesIn returns the names in dir, directories with a trailing /.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil // a run that wrote nothing (shrink with nothing to shrink)
	}
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		names = append(names, name)
	}
	return names
}

// The help parsers read what the help texts say.
func TestHelpParsers(t *testing.T) {
	help := "run runs.\n--out writes run.json, history.jsonl and report.html (and lin.html when P3 fails); --trace x.\n" +
		"Exit 0 when every property held; 1 when one was violated, or a\nproperty was unknown; 2 for bad input; 3 for a bug.\n"
	assert.Equal(t, []int{0, 1, 2, 3}, helpExitCodes(help))
	assert.Equal(t, []string{"history.jsonl", "lin.html", "report.html", "run.json"}, helpOutFiles(help))
	assert.Equal(t, []string{"failures/", "summary.json"}, helpOutFiles("--out writes summary.json and a directory for each\nfailing run under failures/.\nExit 0 when"))
	assert.Empty(t, helpExitCodes("no exit sentence"))
}
