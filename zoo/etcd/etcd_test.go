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
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
)

// built is the binaries every test here runs, built once per test binary
// into a temporary directory that TestMain removes.
var built struct {
	once sync.Once
	dir  string
	bin  Binaries
	err  error
}

// build builds the binaries once per test binary; a failure fails the
// test with go's output, never skips it.
func build(t *testing.T) Binaries {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "leasesim-etcd-test-bin-"); built.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		built.bin, built.err = Build(ctx, built.dir)
		if built.err == nil {
			t.Logf("built etcdmember and etcdholder in %v", built.bin.BuildTime)
		}
	})
	require.NoError(t, built.err, "etcd could not be built, so nothing can be judged")
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		if err := os.RemoveAll(built.dir); err != nil && code == 0 {
			fmt.Fprintln(os.Stderr, "removing the built binaries:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// TestKleppmannOnRealEtcd runs the Kleppmann GC-pause story on real etcd
// (one member, the fenced store) and on the event host, seed 1 each: the
// same P1, P2 and premise verdicts (ok, ok, ok), the paused holder's stale
// write refused, and nothing the run started left behind. The verdicts do
// not hang on timing: h1's belief ends at its own deadline (the TTL after
// the call of its last answered keepalive), which etcd cannot expire the
// lease before, and h2 can lock only after etcd revoked it; h1's action is
// its decision, before the pause. The same run's directory is then judged
// as simrun check judges it (assertCheckDrawsTheReport).
func TestKleppmannOnRealEtcd(t *testing.T) {
	env := &Env{Bin: build(t), Dir: t.TempDir()}
	var held Resources
	env.Started = func(r Resources) { held = r }
	onEtcd, _, err := env.Execute(context.Background(), env.Kleppmann(false), 1, nil)
	require.NoError(t, err)
	assertReleased(t, held)
	event, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{})
	require.NoError(t, err)
	assert.Equal(t, scenarios.HostProcess, onEtcd.Host)
	for _, p := range []string{"P1", "P2", checker.PropertyPremise} {
		assert.Equal(t, checker.OK, event.Verdict(p), "event host %s", p)
		assert.Equal(t, event.Verdict(p), onEtcd.Verdict(p), "%s: real etcd against the event host: %v", p, onEtcd.Checks)
	}
	assert.True(t, refusedWriteOf(onEtcd, "h1"), "h1's stale write reached the store and was refused")
	assertCheckDrawsTheReport(t, onEtcd, env.RunDir(onEtcd.Scenario, onEtcd.Seed))
}

// refusedWriteOf reports whether the store refused a write of holder's.
func refusedWriteOf(out *scenarios.Outcome, holder string) bool {
	for _, op := range out.History.AllOps() {
		if op.Server == StoreName && op.Client == holder && op.Output.Err != "" {
			return true
		}
	}
	return false
}

// assertCheckDrawsTheReport: `simrun check DIR/history.jsonl --out CHECK`
// (its steps: the strict reader, checker.Judge, reports.NewRun named as
// check names a file's run, reports.WriteRunDir) gives the run's verdicts,
// the same history.jsonl byte for byte, and the same report.html but for
// the run's own block: the "Run" section (host, trace hash, wall time,
// replay line, schedule, file list, all of which a file does not know or
// which name the run's own directory) and the implementation in the title
// (a file's run is named by its producer).
func assertCheckDrawsTheReport(t *testing.T, out *scenarios.Outcome, dir string) {
	t.Helper()
	for _, f := range []string{reports.HistoryFile, reports.ReportFile, reports.PerfettoFile, reports.RunJSONFile,
		reports.ScheduleFile, OpsFile, "m0.log", "h1.log", "h2.log", "harness.log"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	file := filepath.Join(dir, reports.HistoryFile)
	hist, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(hist), `"determinism":"statistical"`)
	h, meta, err := leasewire.ReadHistoryAs(bytes.NewReader(hist), file, "")
	require.NoError(t, err)
	run := reports.NewRun(h, meta, checker.Judge(h, checker.Options{Visualize: true}))
	run.Impl, run.TraceHash, run.Source = meta.Producer, "none", file
	require.Len(t, run.Properties, len(out.Checks))
	for i, r := range run.Properties {
		assert.Equal(t, out.Checks[i].Property, r.Property)
		assert.Equal(t, out.Checks[i].Status, r.Status, "simrun check's %s", r.Property)
	}
	check := t.TempDir()
	_, err = reports.WriteRunDir(check, run, reports.RunData{History: h, Meta: meta})
	require.NoError(t, err)
	again, err := os.ReadFile(filepath.Join(check, reports.HistoryFile))
	require.NoError(t, err)
	assert.Equal(t, string(hist), string(again), "history.jsonl written again by simrun check --out")
	judged := func(page, dir string) string {
		page = regexp.MustCompile(`(?s)<section>\s*<h2>Run</h2>.*?</section>`).ReplaceAllString(page, "")
		page = strings.ReplaceAll(page, dir, "DIR")
		return regexp.MustCompile(` · impl [^<]*</small>`).ReplaceAllString(page, "</small>")
	}
	drawn, err := os.ReadFile(filepath.Join(dir, reports.ReportFile))
	require.NoError(t, err)
	checked, err := os.ReadFile(filepath.Join(check, reports.ReportFile))
	require.NoError(t, err)
	require.Contains(t, string(drawn), "<h2>Run</h2>", "the run's own block is there to remove")
	assert.Equal(t, judged(string(drawn), dir), judged(string(checked), check), "simrun check's report of history.jsonl")
}

// TestCancelReleasesEverything ends a run early, as Ctrl-C does in
// cmd/etcdstories: Execute returns the context's error and leaves no
// process, port or temporary directory behind.
func TestCancelReleasesEverything(t *testing.T) {
	env := &Env{Bin: build(t), Dir: t.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var held Resources
	env.Started = func(r Resources) {
		held = r
		time.AfterFunc(time.Second, cancel) // mid-run: h1 holds the lock
	}
	_, _, err := env.Execute(ctx, env.Kleppmann(false), 1, nil)
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
