package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/scenarios"
)

// VerdictHistoriesEnv names the environment variable with how many
// histories TestVerdictsDoNotDependOnLoad records and judges (default
// defaultVerdictHistories; make verdicts-load sets 1000).
const VerdictHistoriesEnv = "LEASESIM_VERDICT_HISTORIES"

// defaultVerdictHistories keeps the test a few seconds long in make test.
const defaultVerdictHistories = 40

// loadedWorkers is how many histories are judged at once under load: 8 on
// a machine of 2 cores, so that every search gets a fraction of a core.
const loadedWorkers = 8

// wallTime matches what a verdict would say if it depended on the
// harness's wall clock: a mention of wall time, a time-out, or a search
// stopped within a duration rather than a count of steps. A simulated
// node's wall clock ("a wall clock was stepped") and a configured
// "request timeout" do not match.
var wallTime = regexp.MustCompile(`(?i)\bwall[- ](clock )?(time|seconds)\b|timed out|time-out|deadline exceeded|` +
	`did not decide[^;]*within [0-9.]+(ns|µs|ms|s|m|h)\b`)

// TestVerdictsDoNotDependOnLoad records histories of the catalogue under
// every implementation simrun knows (leasesim's own, the mutants and the
// zoo's), writes each as a history file, and judges the files as simrun
// check does, first one at a time and then loadedWorkers at once: every
// verdict, summary and violation is the same both ways, and none mentions
// wall time. make verdicts-load runs it over 1,000 histories.
func TestVerdictsDoNotDependOnLoad(t *testing.T) {
	n := defaultVerdictHistories
	if v, ok := os.LookupEnv(VerdictHistoriesEnv); ok {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err, "%s=%q: want a number of histories", VerdictHistoriesEnv, v)
	}
	files := recordHistories(t, t.TempDir(), n)
	require.Len(t, files, n)
	idle := judgeFiles(t, files, 1)
	loaded := judgeFiles(t, files, loadedWorkers)
	verdicts, differ := 0, 0
	for i, file := range files {
		verdicts += len(idle[i])
		if !assert.Equal(t, idle[i], loaded[i], "%s: judged alone and with %d at once", file, loadedWorkers) {
			differ++
		}
		for _, v := range idle[i] {
			assert.NotRegexp(t, wallTime, v, "%s: a verdict that reads the wall clock", file)
		}
	}
	fmt.Printf("verdicts under load: %d histories, %d verdicts, %d histories differ between 1 and %d workers\n",
		len(files), verdicts, differ, loadedWorkers)
}

// The pattern bites on the verdict P3 gave when porcupine ran under a
// timeout, and spares the simulated clocks and configured durations.
func TestWallTimePattern(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"porcupine did not decide 613 operations on 1 resources within 10s", true},
		{"checked in 3.2 wall seconds", true},
		{"the search timed out", true},
		{"porcupine did not decide 613 operations on 1 resources within 500000 model steps each", false},
		{"a wall clock was stepped while a lease was live (step on grantor at 4s while h1 held lock)", false},
		{"within its renew interval 1s plus request timeout 500ms", false},
	} {
		assert.Equal(t, tt.want, wallTime.MatchString(tt.text), tt.text)
	}
}

// recordHistories runs (scenario, implementation, seed) over the catalogue
// and implementations() (every implementation for a scenario, then the
// next scenario), seeds from 1, until n histories are written into dir; a
// scenario an implementation cannot run is passed over.
func recordHistories(t *testing.T, dir string, n int) []string {
	t.Helper()
	var files []string
	for seed := uint64(1); len(files) < n; seed++ {
		for _, sc := range scenarios.Catalog() {
			for _, impl := range implementations() {
				if len(files) == n {
					return files
				}
				out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: impl})
				var unsupported *scenarios.UnsupportedError
				if errors.As(err, &unsupported) {
					continue
				}
				require.NoError(t, err, "%s %s seed %d", sc.Name, impl.Name, seed)
				file := filepath.Join(dir, fmt.Sprintf("%04d.jsonl", len(files)))
				writeHistoryFile(t, file, out.History, leasewire.Meta{Determinism: history.Exact,
					Scenario: sc.Name, Seed: seed})
				files = append(files, file)
			}
		}
	}
	return files
}

// writeHistoryFile writes h with meta into file.
func writeHistoryFile(t *testing.T, file string, h *history.History, meta leasewire.Meta) {
	t.Helper()
	f, err := os.Create(file)
	require.NoError(t, err)
	require.NoError(t, leasewire.WriteHistory(f, h, meta))
	require.NoError(t, f.Close())
}

// judgeFiles judges every file as simrun check does, workers at a time,
// and returns each file's verdicts as lines: property, status, summary,
// and each violation's detail.
func judgeFiles(t *testing.T, files []string, workers int) [][]string {
	t.Helper()
	out := make([][]string, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				out[i] = judgeForTest(t, files[i])
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// judgeForTest reads, specifies and judges one history file as simrun
// check does, and returns its verdicts as lines.
func judgeForTest(t *testing.T, file string) []string {
	h, meta, err := readHistoryFile(file, "")
	if !assert.NoError(t, err) {
		return nil
	}
	if !assert.NoError(t, applySpec(h, file, "")) {
		return nil
	}
	run, _ := judgeFile(h, meta, file, checker.Options{})
	var lines []string
	for _, r := range run.Properties {
		lines = append(lines, fmt.Sprintf("%s %s %s assumption=%v: %s", r.Property, r.Name, r.Status,
			r.AssumptionExceeded, r.Summary))
		for _, v := range r.Violations {
			lines = append(lines, "  "+v.Detail+" | "+strings.Join(v.Evidence, "; "))
		}
	}
	return lines
}
