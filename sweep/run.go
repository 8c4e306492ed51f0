package sweep

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// windowPerWorker bounds how far ahead of the oldest unfinished run the
// workers may go, per worker. Results are aggregated in (scenario, seed)
// order, so runs that finish early wait in a buffer; the window keeps that
// buffer, and so the sweep's memory, bounded by a constant.
const windowPerWorker = 16

// Run runs the sweep cfg describes and returns its summary.
//
// Runs are numbered in (scenario, seed) order: every seed of the first
// scenario, then of the next. Parallel worker goroutines take runs in that
// order; each run is single-threaded in its own world, and its outcome is
// reduced at once to the few numbers the summary needs. Results are
// aggregated in run order whatever order they finish in, so the summary is
// the same at any parallelism, apart from the wall-clock fields
// (WallSeconds, CPUSeconds, EventsPerSecond, SeedsPerSecond,
// MeanAcceleration, Parallel).
//
// When ctx is cancelled (Ctrl-C), workers take no new runs, the runs in
// flight finish, and Run returns a summary with Partial set that covers
// exactly the runs that finished, and a nil error. An error means cfg is
// bad input (it matches ErrInvalid), or a bug of the harness itself (a
// *scenarios.HarnessPanic, found with errors.As), which stops the sweep at
// once: it is never a verdict on the implementation. The summary returned
// with a harness bug is Partial.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Summary{}, err
	}
	start := time.Now()
	r := &runner{cfg: cfg}
	total := r.plan()
	cfg.Logger.Info("sweep: start", "scenarios", len(cfg.names()), "impl", cfg.implName(),
		"seeds", cfg.Seeds.String(), "shard", cfg.Shard.String(), "runs", total, "parallel", cfg.Parallel)

	b := newBuilder(cfg, total)
	window := windowPerWorker * cfg.Parallel
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := r.start(ctx, total, window)
	var harness error

	// Reorder buffer: run k waits in buf[k%window] until every run before
	// it has been aggregated. The window guarantees k < next+window.
	buf := make([]*record, window)
	next, done := 0, 0
	for rec := range results {
		if rec.harness != nil {
			if harness == nil {
				harness = fmt.Errorf("sweep: scenario %s seed %d: %w", rec.scenario, rec.seed, rec.harness)
				cancel()
			}
			rec = &record{k: rec.k, harness: rec.harness} // keeps its place, adds nothing
		} else {
			done++
			b.notify(rec, done)
		}
		buf[rec.k%window] = rec
		for buf[next%window] != nil && buf[next%window].k == next {
			b.addRecord(buf[next%window])
			buf[next%window] = nil
			next++
			r.release()
		}
	}
	// Cancelled: runs after a gap finished too; aggregate them in order.
	for k := next; k < next+window; k++ {
		if rec := buf[k%window]; rec != nil && rec.k == k {
			b.addRecord(rec)
		}
	}
	sum := b.finish(time.Since(start), done < total)
	cfg.Logger.Info("sweep: end", "runs", sum.Runs, "failures", sum.Failed(),
		"partial", sum.Partial, "wall_seconds", sum.WallSeconds)
	return sum, harness
}

// addRecord aggregates rec unless it stands for a harness bug.
func (b *builder) addRecord(rec *record) {
	if rec.harness == nil {
		b.add(rec)
	}
}

// runner hands runs to workers.
type runner struct {
	cfg    Config
	starts []int         // starts[i]: the number of scenario i's first run
	tokens chan struct{} // one per run that may be started ahead
}

// plan numbers the runs, scenario by scenario, and returns how many there
// are.
func (r *runner) plan() int {
	total := 0
	r.starts = make([]int, len(r.cfg.names()))
	for i := range r.cfg.names() {
		r.starts[i] = total
		total += r.cfg.Shard.Len(r.cfg.seedsOf(i))
	}
	return total
}

// locate returns the scenario index and seed of run k.
func (r *runner) locate(k int) (int, uint64) {
	i := sort.Search(len(r.starts), func(i int) bool { return r.starts[i] > k }) - 1
	return i, r.cfg.Shard.Seed(r.cfg.seedsOf(i), k-r.starts[i])
}

// start launches the dispatcher and the workers and returns the channel
// on which results arrive; it is closed when every worker has stopped.
func (r *runner) start(ctx context.Context, total, window int) <-chan *record {
	r.tokens = make(chan struct{}, window)
	for range window {
		r.tokens <- struct{}{}
	}
	jobs := make(chan int)
	results := make(chan *record, r.cfg.Parallel)
	go func() {
		defer close(jobs)
		for k := range total {
			select {
			case <-ctx.Done():
				return
			case <-r.tokens:
			}
			select {
			case <-ctx.Done():
				return
			case jobs <- k:
			}
		}
	}()
	var wg sync.WaitGroup
	for range r.cfg.Parallel {
		wg.Go(func() {
			for k := range jobs {
				if ctx.Err() != nil {
					continue // drop: the sweep was interrupted before this run began
				}
				if rec := r.run(ctx, k); rec != nil {
					results <- rec
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	return results
}

// release lets the dispatcher start one more run.
func (r *runner) release() {
	select {
	case r.tokens <- struct{}{}:
	default: // cannot happen: every token taken is released once
		panic("sweep: window token released twice")
	}
}
