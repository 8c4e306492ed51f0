package sweep

import (
	"context"
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
// bad input (it matches ErrInvalid).
func Run(ctx context.Context, cfg Config) (Summary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Summary{}, err
	}
	start := time.Now()
	perScenario := cfg.Shard.Len(cfg.Seeds)
	total := perScenario * len(cfg.Scenarios)
	cfg.Logger.Info("sweep: start", "scenarios", len(cfg.Scenarios), "impl", cfg.Impl.Name,
		"seeds", cfg.Seeds.String(), "shard", cfg.Shard.String(), "runs", total, "parallel", cfg.Parallel)

	r := &runner{cfg: cfg, perScenario: perScenario}
	b := newBuilder(cfg, total)
	window := windowPerWorker * cfg.Parallel
	results := r.start(ctx, total, window)

	// Reorder buffer: run k waits in buf[k%window] until every run before
	// it has been aggregated. The window guarantees k < next+window.
	buf := make([]*record, window)
	next, done := 0, 0
	for rec := range results {
		done++
		b.notify(rec, done)
		buf[rec.k%window] = rec
		for buf[next%window] != nil && buf[next%window].k == next {
			b.add(buf[next%window])
			buf[next%window] = nil
			next++
			r.release()
		}
	}
	// Cancelled: runs after a gap finished too; aggregate them in order.
	for k := next; k < next+window; k++ {
		if rec := buf[k%window]; rec != nil && rec.k == k {
			b.add(rec)
		}
	}
	sum := b.finish(time.Since(start), ctx.Err() != nil && done < total)
	cfg.Logger.Info("sweep: end", "runs", sum.Runs, "failures", len(sum.Failures)+sum.FailuresOmitted,
		"partial", sum.Partial, "wall_seconds", sum.WallSeconds)
	return sum, nil
}

// runner hands runs to workers.
type runner struct {
	cfg         Config
	perScenario int
	tokens      chan struct{} // one per run that may be started ahead
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
				results <- r.run(k)
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
