package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/internal/strictjson"
)

// Goroutine-host zoo modules (zoo/NAME, each its own Go module) run
// ordinary Go lease code in gohost's testing/synctest bubbles. A bubble
// needs a *testing.T, so it runs only inside a test binary, and
// crypto/rand's seeding is process-global, so bubbles must not run in
// parallel in one process: simrun builds the module's test binary and runs
// its worker test (scenarios.Worker) in worker processes, one job each. The
// core never imports a zoo module: it finds one by the manifest
// (manifestFile) in the module's directory.

// manifestFile is the file that makes a directory under zoo/ a
// goroutine-host module simrun can run.
const manifestFile = "leasesim.json"

// manifestSchema is the manifest's schema version.
const manifestSchema = 1

// coreModule is the core's module path: the zoo directory is found next
// to the go.mod that declares it.
const coreModule = "github.com/leasesim/leasesim"

// manifest is a zoo module's leasesim.json.
type manifest struct {
	SchemaVersion int            `json:"schema_version"`
	Impls         []manifestImpl `json:"impls"`
}

// manifestImpl is one --impl name a module serves: the worker test that
// runs its scenarios, in Package (relative to the module, default ".").
type manifestImpl struct {
	Name    string `json:"name"`
	Doc     string `json:"doc"`
	Worker  string `json:"worker"`
	Package string `json:"package,omitempty"`
}

// goImpl is a goroutine-host implementation found in a manifest, or
// named by --pkg (pkgImpl).
type goImpl struct {
	manifestImpl
	// Module is the module's directory, Manifest its manifest's path
	// ("" for --pkg).
	Module, Manifest string
	// Pkg is --pkg as given, which printed lines repeat, and ImportPath
	// the package's import path; both "" for a zoo module's.
	Pkg, ImportPath string
}

// zooDir returns the directory that holds the zoo modules: dir when
// given (--zoo-dir), else the zoo/ directory of the core module enclosing
// the working directory, or "" when there is none.
func zooDir(dir string) (string, error) {
	if dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", fmt.Errorf("--zoo-dir %s: not a directory", dir)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && declaresModule(data, coreModule) {
			return filepath.Join(d, "zoo"), nil
		}
		if filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// declaresModule reports whether the go.mod data declares module path.
func declaresModule(data []byte, path string) bool { return modulePath(data) == path }

// goImpls reads every manifest in the zoo directory's modules, in
// directory order. A manifest that cannot be read is bad input naming
// the file.
func goImpls(dir string) ([]goImpl, error) {
	if dir == "" {
		return nil, nil
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*", manifestFile))
	if err != nil {
		return nil, err
	}
	var out []goImpl
	for _, path := range paths {
		m, err := readManifest(path)
		if err != nil {
			return nil, err
		}
		for _, im := range m.Impls {
			if slices.ContainsFunc(out, func(g goImpl) bool { return g.Name == im.Name }) {
				return nil, fmt.Errorf("%s: impl %q is declared twice", path, im.Name)
			}
			out = append(out, goImpl{manifestImpl: im, Module: filepath.Dir(path), Manifest: path})
		}
	}
	return out, nil
}

// readManifest reads and checks one manifest strictly.
func readManifest(path string) (manifest, error) {
	var m manifest
	data, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := locatedJSON(path, data, strictjson.Unmarshal(data, &m, strictjson.NoNulls)); err != nil {
		return m, err
	}
	if m.SchemaVersion != manifestSchema {
		return m, fmt.Errorf("%s: schema_version %d, want %d", path, m.SchemaVersion, manifestSchema)
	}
	for i, im := range m.Impls {
		if im.Name == "" || im.Worker == "" || !strings.HasPrefix(im.Worker, "Test") {
			return m, fmt.Errorf("%s: impls[%d]: want a name and a worker test (TestX), got %q and %q", path, i, im.Name, im.Worker)
		}
	}
	return m, nil
}

// findGoImpl returns the goroutine-host implementation called name, or
// nil.
func findGoImpl(impls []goImpl, name string) *goImpl {
	for i := range impls {
		if impls[i].Name == name {
			return &impls[i]
		}
	}
	return nil
}

// pkgDir is the directory of the worker test's package.
func (g *goImpl) pkgDir() string { return filepath.Join(g.Module, filepath.FromSlash(g.Package)) }

// where says where g's code is, for a person: its package for --pkg, its
// module for a zoo module's.
func (g *goImpl) where() string {
	if g.Pkg != "" {
		return "package " + g.ImportPath
	}
	return "module " + rel(g.Module)
}

// build builds the worker test's binary into simrun's cache and returns
// its path. It runs `go test -c` every time: go's build cache makes that
// cheap when nothing changed, and it is the one judge of "up to date".
func (g *goImpl) build(ctx context.Context) (string, error) {
	abs, err := realDir(g.pkgDir())
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(abs))
	dir := filepath.Join(cache, "leasesim", "gohost", hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, cacheSourceFile), []byte(abs), 0o644); err != nil {
		return "", err
	}
	pruneWorkerCache(filepath.Dir(dir))
	bin := filepath.Join(dir, filepath.Base(abs)+".test")
	// Built into a directory of its own, then renamed into place, so that
	// two simruns building one package at once never run a half-written
	// binary, and a binary being run is never removed under it. The last
	// binary is copied there first: go test -c compares its build ID with
	// the package's and does not link again when they match (a link of a
	// client-go worker takes seconds). go test -c writes nothing for a
	// package without tests, so an old binary must not stand in for it:
	// the copy is removed when go says there are none.
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	built := filepath.Join(tmp, filepath.Base(bin))
	if err := copyExecutable(bin, built); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", built, ".")
	cmd.Dir = abs
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%w: go test -c in %s: %w\n%s", errBuild, abs, err, out)
	}
	if _, err := os.Stat(built); errors.Is(err, os.ErrNotExist) || bytes.Contains(out, []byte("[no test files]")) {
		return "", fmt.Errorf("%w %s: the package has no test files", errNoWorker, g.Worker)
	}
	if err := os.Rename(built, bin); err != nil {
		return "", err
	}
	return bin, g.checkWorker(ctx, bin)
}

// errBuild is a test binary that did not build; errNoWorker one without
// the worker test.
var (
	errBuild    = errors.New("the test binary does not build")
	errNoWorker = errors.New("no worker test")
)

// checkWorker checks that bin has g's worker test (go test's -test.list).
func (g *goImpl) checkWorker(ctx context.Context, bin string) error {
	cmd := exec.CommandContext(ctx, bin, "-test.list", "^"+g.Worker+"$")
	cmd.Dir = g.pkgDir()
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("listing the tests of %s: %w", bin, err)
	}
	if !slices.Contains(strings.Fields(string(out)), g.Worker) {
		return fmt.Errorf("%w %s: the package's tests do not include it", errNoWorker, g.Worker)
	}
	return nil
}

// workerRun is one worker process's job and what it wrote.
type workerRun struct {
	records []gohost.Record
	// histories are the history files of the job's seeds, by seed, when
	// the job asked for them (runWorker's histories).
	histories map[uint64][]byte
	output    []byte // the test binary's own output, for errors
}

// runWorker runs job in a worker process of bin and reads its records,
// and with histories the history file of each seed it ran. An error is the
// harness's: the process could not start, failed without saying why in a
// record, or wrote records that do not parse.
func (g *goImpl) runWorker(ctx context.Context, bin string, job gohost.Job, histories bool) (workerRun, error) {
	return g.doJob(ctx, job, histories, func(jobFile string, _ []byte) ([]byte, error) {
		cmd := exec.CommandContext(ctx, bin, "-test.run", "^"+g.Worker+"$", "-test.count=1")
		cmd.Dir = g.pkgDir()
		cmd.Env = workerEnv(jobFile)
		return cmd.CombinedOutput()
	})
}

// workerEnv is a worker process's environment, with jobFile its job.
func workerEnv(jobFile string) []string {
	env := append(os.Environ(), gohost.WorkerEnv+"="+jobFile)
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		// A worker runs one bubble at a time, and a bubble's goroutines
		// take turns: more than one P buys it only scheduler and GC
		// contention (a third more CPU for the same run). simrun runs
		// --parallel workers instead. Trace hashes do not depend on it.
		env = append(env, "GOMAXPROCS=1")
	}
	return env
}

// doJob writes job's file in a directory of its own, has do run it (in a
// process of its own, or a serving worker given the job's line), and reads
// what the worker wrote.
func (g *goImpl) doJob(ctx context.Context, job gohost.Job, histories bool, do func(jobFile string, line []byte) ([]byte, error)) (workerRun, error) {
	var wr workerRun
	dir, err := os.MkdirTemp("", "leasesim-worker-")
	if err != nil {
		return wr, err
	}
	defer os.RemoveAll(dir)
	job.SchemaVersion, job.Out = gohost.WorkerSchema, filepath.Join(dir, "records.jsonl")
	if histories {
		job.HistoryDir = dir
	}
	data, err := json.Marshal(job)
	if err != nil {
		return wr, err
	}
	jobFile := filepath.Join(dir, "job.json")
	if err := os.WriteFile(jobFile, data, 0o644); err != nil {
		return wr, err
	}
	wr.output, err = do(jobFile, data)
	records, rerr := readWorkerRecords(job.Out)
	wr.records = records
	switch {
	case ctx.Err() != nil:
		return wr, ctx.Err()
	case errors.Is(rerr, os.ErrNotExist):
		return wr, fmt.Errorf("the worker test %s of %s wrote nothing (is it in %s and does it call scenarios.Worker?): %v\n%s",
			g.Worker, g.Name, g.pkgDir(), err, outputTail(wr.output))
	case rerr != nil:
		return wr, fmt.Errorf("worker of %s: %w\n%s", g.Name, rerr, outputTail(wr.output))
	case err != nil && !hasErrorRecord(records):
		return wr, fmt.Errorf("worker of %s: %w\n%s", g.Name, err, outputTail(wr.output))
	}
	if histories {
		wr.histories = make(map[uint64][]byte)
		for _, r := range records {
			if r.Outcome == nil {
				continue
			}
			b, err := os.ReadFile(gohost.HistoryPath(dir, r.Outcome.Seed))
			if err != nil {
				return wr, fmt.Errorf("worker of %s: seed %d's history: %w\n%s", g.Name, r.Outcome.Seed, err, outputTail(wr.output))
			}
			wr.histories[r.Outcome.Seed] = b
		}
	}
	return wr, nil
}

// readWorkerRecords reads a worker's records strictly; errors name the
// line.
func readWorkerRecords(path string) ([]gohost.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []gohost.Record
	lines := strictjson.NewLines(f, 1<<26, path)
	for {
		line, err := lines.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		r, err := gohost.ReadRecord(line)
		if err != nil {
			return out, fmt.Errorf("%s: line %d: %w", path, lines.Line(), err)
		}
		out = append(out, r)
	}
}

func hasErrorRecord(records []gohost.Record) bool {
	return slices.ContainsFunc(records, func(r gohost.Record) bool { return r.Error != nil })
}

// outputTail is the last lines of a worker's output, for an error message.
func outputTail(out []byte) string {
	const maxLines = 30
	lines := bytes.Split(bytes.TrimRight(out, "\n"), []byte("\n"))
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("  | " + string(l))
	}
	return b.String()
}

// copyExecutable copies the executable file src to dst (a new file).
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
