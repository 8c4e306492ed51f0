package etcd

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/reports"
)

// build builds the binaries once per test binary; a failure fails the
// test with go's output, never skips it.
func build(t *testing.T) Binaries {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	bin, err := Build(ctx, t.TempDir())
	require.NoError(t, err, "etcd could not be built, so nothing can be judged")
	t.Logf("built etcdmember and etcdholder in %v", bin.BuildTime)
	return bin
}

// TestPauseStoryOnRealEtcd is the short real-etcd test: one member, the
// pause story with the fenced store. h1 is SIGSTOPped past its session's TTL
// while it believes it holds the mutex: P1 is violated, P2 holds, and
// nothing the run started is left behind.
func TestPauseStoryOnRealEtcd(t *testing.T) {
	bin := build(t)
	s := PauseStory(1, false)
	var held Resources
	s.Config.Started = func(r Resources) { held = r }
	dir := filepath.Join(t.TempDir(), "run")
	v, err := RunStory(context.Background(), s, bin, dir, 1)
	require.NoError(t, err)
	assertReleased(t, held)
	t.Logf("verdicts: %s; run directory %s", v.Line(), dir)

	assert.Equal(t, checker.OK, v.Status(checker.PropertyPremise), "the story's premises: %v", v.Checks)
	assert.Equal(t, checker.Violated, v.Status("P1"), "a holder paused past its TTL still believes")
	assert.Equal(t, checker.OK, v.Status("P2"), "the fenced store refuses the paused holder's stale write")
	assert.Equal(t, checker.OK, v.Status("P3"), "etcd's grants, keepalives, creates and gets fit the lessor specification")
	assert.NoError(t, v.ReadBack, "simrun check reads history.jsonl and gives the same verdicts")
	for _, f := range []string{"history.jsonl", OpsFile, "report.html", "m0.log", "h1.log", "h2.log", "verdicts.txt"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	hist, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(hist), `"determinism":"statistical"`)
	assertCheckDrawsTheReport(t, dir, hist)
}

// assertCheckDrawsTheReport: simrun check of a run directory's
// history.jsonl (read, judged, drawn as cmd/simrun's check does) draws
// report.html as the run did, but for the run's own block (its "Run"
// section and the implementation in its title).
func assertCheckDrawsTheReport(t *testing.T, dir string, hist []byte) {
	t.Helper()
	h, meta, err := leasewire.ReadHistory(bytes.NewReader(hist), reports.HistoryFile)
	require.NoError(t, err)
	run := reports.NewRun(h, meta, checker.Judge(h, checker.Options{Visualize: true}))
	var page bytes.Buffer
	require.NoError(t, reports.WriteRunHTML(&page, run, reports.RunData{History: h, Meta: meta}))
	drawn, err := os.ReadFile(filepath.Join(dir, reports.ReportFile))
	require.NoError(t, err)
	judged := func(page string) string {
		page = regexp.MustCompile(`(?s)<section>\s*<h2>Run</h2>.*?</section>`).ReplaceAllString(page, "")
		return regexp.MustCompile(` · impl [^<]*</small>`).ReplaceAllString(page, "</small>")
	}
	assert.Equal(t, judged(string(drawn)), judged(page.String()), "simrun check's report of history.jsonl")
}

// TestCancelReleasesEverything ends a run early, as Ctrl-C does in
// cmd/etcdstories: Run returns the context's error and leaves no process,
// port or temporary directory behind.
func TestCancelReleasesEverything(t *testing.T) {
	bin := build(t)
	s := PauseStory(1, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var held Resources
	s.Config.Started = func(r Resources) {
		held = r
		time.AfterFunc(time.Second, cancel) // mid-run: h1 holds the lock
	}
	_, err := RunStory(ctx, s, bin, filepath.Join(t.TempDir(), "run"), 1)
	require.ErrorIs(t, err, context.Canceled)
	require.NotEmpty(t, held.PIDs, "the run had started its processes")
	assertReleased(t, held)
}

// assertReleased checks that no child process, listener or temporary
// directory of r is left.
func assertReleased(t *testing.T, r Resources) {
	t.Helper()
	require.NotEmpty(t, r.Ports)
	for _, pid := range r.PIDs {
		_, err := os.Stat("/proc/" + strconv.Itoa(pid))
		assert.True(t, os.IsNotExist(err), "process %d is still there", pid)
	}
	assert.Empty(t, children(t), "child processes left")
	for _, port := range r.Ports {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
		}
		assert.Error(t, err, "port %d still accepts connections", port)
	}
	_, err := os.Stat(r.TempDir)
	assert.True(t, os.IsNotExist(err), "temporary directory %s is still there", r.TempDir)
}

// children returns the pids whose parent is this process (not yet reaped
// zombies included).
func children(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		fs := strings.Fields(rest)
		if len(fs) > 1 && fs[1] == strconv.Itoa(os.Getpid()) {
			out = append(out, pid)
		}
	}
	return out
}
