package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/leasesim/leasesim/gohost"
)

// A sweep runs many seeds; a worker process per seed spends a third of its
// time starting (exec, page faults, the module's package inits). A
// workerPool keeps serving workers (gohost.JobServe) instead: at most one
// per --parallel slot, each doing one job at a time. A worker that dies
// fails only the job it was doing, and the next job starts another.
// --verify-determinism still runs each seed again in a fresh process, and
// every seed already runs twice in its worker, so state a process carries
// from one seed to the next shows as a divergence, not as a silent change.

// workerPool hands jobs to serving worker processes of one binary.
type workerPool struct {
	ctx  context.Context
	g    *goImpl
	bin  string
	idle chan *servingWorker

	// serveRefused is set once a worker did not know the serve job.
	serveRefused atomic.Bool

	mu     sync.Mutex
	closed bool
	all    []*servingWorker
}

// servingWorker is one worker process that serves jobs.
type servingWorker struct {
	cmd    *exec.Cmd
	jobs   io.WriteCloser // its standard input
	acks   *bufio.Reader  // gohost.ServeAckFD's read end
	output *tailBuffer    // its standard output and error, the last of it
	dir    string         // its serve job's directory

	waited  sync.Once
	waitErr error
}

// newWorkerPool returns a pool of at most size workers of bin; ctx ends
// them all.
func newWorkerPool(ctx context.Context, g *goImpl, bin string, size int) *workerPool {
	return &workerPool{ctx: ctx, g: g, bin: bin, idle: make(chan *servingWorker, max(size, 1))}
}

// run does job in a serving worker, as runWorker does in a process of its
// own.
func (p *workerPool) run(ctx context.Context, job gohost.Job, histories bool) (workerRun, error) {
	if p.serveRefused.Load() {
		return p.g.runWorker(ctx, p.bin, job, histories)
	}
	var refused bool
	wr, err := p.g.doJob(ctx, job, histories, func(jobFile string, line []byte) ([]byte, error) {
		w, err := p.get()
		if err != nil {
			return nil, err
		}
		if err := w.do(ctx, line); err != nil {
			refused = w.refusedToServe()
			p.discard(w)
			if refused {
				return nil, nil // the job is done again below, in a process of its own
			}
			return w.output.bytes(), err
		}
		p.put(w)
		return w.output.bytes(), nil
	})
	if refused {
		// A package built against a leasesim from before serving workers
		// (a user's module pinned to an older release) does each job in a
		// process of its own, as simrun did then.
		p.serveRefused.Store(true)
		return p.g.runWorker(ctx, p.bin, job, histories)
	}
	return wr, err
}

// refusedToServe reports whether w ended because its worker did not know
// the serve job: its one record is a bad-job error.
func (w *servingWorker) refusedToServe() bool {
	recs, err := readWorkerRecords(filepath.Join(w.dir, "records.jsonl"))
	return err == nil && len(recs) == 1 && recs[0].Error != nil && recs[0].Error.Kind == gohost.ErrKindBadJob
}

// do sends w one job and waits for its acknowledgement.
func (w *servingWorker) do(ctx context.Context, line []byte) error {
	if _, err := w.jobs.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("sending a job: %w", err)
	}
	acked := make(chan error, 1)
	go func() {
		_, err := w.acks.ReadString('\n')
		acked <- err
	}()
	select {
	case err := <-acked:
		if err != nil {
			return fmt.Errorf("the worker process ended during the job: %w", errors.Join(err, w.wait()))
		}
		return nil
	case <-ctx.Done():
		_ = w.cmd.Process.Kill()
		<-acked
		return ctx.Err()
	}
}

// get takes an idle worker, or starts one.
func (p *workerPool) get() (*servingWorker, error) {
	select {
	case w := <-p.idle:
		return w, nil
	default:
	}
	return p.start()
}

// put returns w to the idle workers, or ends it when they are enough.
func (p *workerPool) put(w *servingWorker) {
	select {
	case p.idle <- w:
	default:
		p.discard(w)
	}
}

// start starts a serving worker.
func (p *workerPool) start() (*servingWorker, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("the worker pool is closed")
	}
	dir, err := os.MkdirTemp("", "leasesim-serve-")
	if err != nil {
		return nil, err
	}
	jobFile := filepath.Join(dir, "job.json")
	data, err := json.Marshal(gohost.Job{SchemaVersion: gohost.WorkerSchema, Kind: gohost.JobServe, Out: filepath.Join(dir, "records.jsonl")})
	if err == nil {
		err = os.WriteFile(jobFile, data, 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// No test timeout: the worker lives as long as the sweep.
	cmd := exec.CommandContext(p.ctx, p.bin, "-test.run", "^"+p.g.Worker+"$", "-test.count=1", "-test.timeout=0")
	cmd.Dir = p.g.pkgDir()
	cmd.Env = workerEnv(jobFile)
	cmd.ExtraFiles = []*os.File{ackW} // gohost.ServeAckFD
	w := &servingWorker{cmd: cmd, acks: bufio.NewReader(ackR), output: &tailBuffer{}, dir: dir}
	cmd.Stdout, cmd.Stderr = w.output, w.output
	if w.jobs, err = cmd.StdinPipe(); err == nil {
		err = cmd.Start()
	}
	ackW.Close() // the worker holds its own copy; EOF on ackR is its end
	if err != nil {
		ackR.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting a worker of %s: %w", p.g.Name, err)
	}
	p.all = append(p.all, w)
	return w, nil
}

// discard ends w and removes its directory.
func (p *workerPool) discard(w *servingWorker) {
	_ = w.jobs.Close()
	_ = w.cmd.Process.Kill()
	_ = w.wait()
	os.RemoveAll(w.dir)
}

// wait waits for w's process to end, once.
func (w *servingWorker) wait() error {
	w.waited.Do(func() { w.waitErr = w.cmd.Wait() })
	return w.waitErr
}

// close ends every worker: idle ones finish at the end of their input.
func (p *workerPool) close() {
	p.mu.Lock()
	p.closed = true
	all := p.all
	p.mu.Unlock()
	for _, w := range all {
		_ = w.jobs.Close()
	}
	for _, w := range all {
		_ = w.wait()
		os.RemoveAll(w.dir)
	}
}

// tailBuffer keeps the last tailBytes a process wrote, for error messages.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 64 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}
