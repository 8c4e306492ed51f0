package gohost

import (
	"fmt"
	mathrand "math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/cryptotest"
	"testing/synctest"
	"time"

	"github.com/leasesim/leasesim/history"
)

// runs numbers the runs of this process, so that concurrent runs' goroutine
// labels never collide.
var runs atomic.Uint64

// Run runs cfg's nodes for one seed in a testing/synctest bubble and
// returns the trace, its hash, the history the nodes recorded and what
// went wrong outside the protocol (Result.Err). With cfg.Verify it runs
// the seed twice and compares the traces event by event: Result.Level is
// then verified, or diverged at the first event that differs. Run fails t
// only when cfg is unusable; the caller judges the result (res.Err(),
// checker.Check(res.History, …)).
//
// t must not be inside a bubble already (synctest bubbles do not nest).
func Run(t *testing.T, cfg Config, seed uint64) Result {
	t.Helper()
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	res := runOnce(t, &cfg, seed)
	if !cfg.Verify {
		return res
	}
	again := runOnce(t, &cfg, seed)
	res.Level.Runs = 2
	if i := firstDifference(res.Events, again.Events); i >= 0 {
		res.Level.DivergedAt = i
		res.Level.First, res.Level.Second = eventAt(res.Events, i), eventAt(again.Events, i)
		res.Level.Likely = diagnose(&cfg, res.Events, again.Events, i)
	} else {
		res.Level.Determinism = history.Verified
	}
	return res
}

func eventAt(events []Event, i int) string {
	if i < len(events) {
		return events[i].String()
	}
	return "end of trace"
}

// runOnce runs the seed once, with a watchdog outside the bubble.
func runOnce(t *testing.T, cfg *Config, seed uint64) (res Result) {
	runID := fmt.Sprintf("r%d", runs.Add(1))
	var waiting atomic.Bool
	var progress atomic.Uint64
	var out *Result
	var hst *host
	wd := newWatchdog(t, cfg.Watchdog, runID, &waiting, &progress)
	defer func() {
		stalls := wd.stop()
		res.Problems = append(res.Problems, stalls...)
	}()
	defer func() {
		// A goroutine of a node that outlives the bubble's main makes
		// synctest panic ("deadlock: main bubble goroutine has exited
		// but blocked goroutines remain"); the host names the leaks
		// (host.leftovers), and the run's result stands, with the
		// panic said.
		p := recover()
		if p == nil {
			return
		}
		if err, ok := p.(error); ok && strings.HasPrefix(err.Error(), "deadlock") && out != nil {
			hst.leftovers(out)
			res = *out
			res.Problems = append(res.Problems, fmt.Sprintf("seed %d: synctest: %v (goroutines that outlived their node stay parked in the abandoned bubble)", seed, err))
			return
		}
		panic(p)
	}()
	if cfg.SeedCryptoRand {
		cryptotest.SetGlobalRandom(t, mix(seed, "crypto/rand", 0))
	}
	if cfg.SeedMathRand && !seedMathRand(mix(seed, "math/rand", 0)) {
		t.Fatal("gohost: Config.SeedMathRand: rand.Seed has no effect in this test binary (Go 1.24+): " +
			"add a `//go:debug randseednop=0` line to one of its test files")
	}
	synctest.Test(t, func(*testing.T) {
		hst = newHost(cfg, seed, runID, &waiting, &progress)
		out = hst.run()
	})
	return *out
}

// seedMathRand seeds math/rand's global source and reports whether that
// took effect (GODEBUG randseednop=0).
func seedMathRand(seed uint64) bool {
	//lint:ignore SA1019 the global source is what the code under test reads
	mathrand.Seed(1)
	a := mathrand.Int63()
	//lint:ignore SA1019 as above
	mathrand.Seed(1)
	if a != mathrand.Int63() {
		return false
	}
	//lint:ignore SA1019 as above
	mathrand.Seed(int64(seed))
	return true
}

// watchdog reports, from outside the bubble, a host that waited too long
// in real time for the bubble to settle: a goroutine is blocked outside
// the bubble's control (real I/O, a syscall, a busy loop), which the fake
// clock cannot advance past.
type watchdog struct {
	done   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	stalls []string
}

func newWatchdog(t *testing.T, limit time.Duration, runID string, waiting *atomic.Bool, progress *atomic.Uint64) *watchdog {
	if limit <= 0 {
		limit = DefaultWatchdog
	}
	w := &watchdog{done: make(chan struct{})}
	w.wg.Go(func() {
		tick := time.NewTicker(limit / 4)
		defer tick.Stop()
		last, since, reported := progress.Load(), time.Now(), false
		for {
			select {
			case <-w.done:
				return
			case <-tick.C:
			}
			if p := progress.Load(); p != last || !waiting.Load() {
				last, since, reported = p, time.Now(), false
				continue
			}
			if reported || time.Since(since) < limit {
				continue
			}
			reported = true
			msg := stallReport(runID, time.Since(since))
			t.Log(msg)
			w.mu.Lock()
			w.stalls = append(w.stalls, msg)
			w.mu.Unlock()
		}
	})
	return w
}

// stop ends the watchdog and returns what it reported.
func (w *watchdog) stop() []string {
	close(w.done)
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stalls
}

// stallReport names the node goroutines that keep the bubble from
// settling: those waiting for a mutex (synctest does not count that as
// durable blocking), with the goroutines in real I/O that may hold it;
// else those in real I/O or a syscall; else every node goroutine (one of
// them is running, or blocked in a way synctest does not count as
// durable).
func stallReport(runID string, waited time.Duration) string {
	groups := goroutineGroups(runID + "/")
	var real, mutex, all []string
	for _, g := range groups {
		node := strings.SplitN(g.label, "/", 3)
		name := g.label
		if len(node) == 3 {
			name = fmt.Sprintf("node %s (incarnation %s)", node[1], node[2])
		}
		line := fmt.Sprintf("%s: %d× %s", name, g.count, g.where())
		all = append(all, line)
		switch {
		case g.calls("sync.(*Mutex).Lock", "sync.(*RWMutex).Lock", "sync.(*RWMutex).RLock"):
			mutex = append(mutex, line)
		case g.calls("internal/poll.", "syscall.", "net."):
			real = append(real, line)
		}
	}
	for_ := waited.Round(time.Millisecond)
	switch {
	case len(mutex) > 0:
		holders := "its holder is not in real I/O: it runs, or is blocked outside the bubble's control; node goroutines: " +
			strings.Join(all, "; ")
		if len(real) > 0 {
			holders = "in real I/O, perhaps holding it: " + strings.Join(real, "; ")
		}
		return fmt.Sprintf("bubble not settling for %v of real time: blocked on a mutex (synctest cannot wait for a mutex, "+
			"and the fake clock stands still while its holder keeps it): %s; %s", for_, strings.Join(mutex, "; "), holders)
	case len(real) > 0:
		return fmt.Sprintf("bubble not settling for %v of real time: real I/O inside the bubble (synctest cannot wait for it, and the fake clock stands still meanwhile): %s",
			for_, strings.Join(real, "; "))
	}
	return fmt.Sprintf("bubble not settling for %v of real time: a goroutine is running or blocked outside the bubble's control (real I/O, a syscall, a mutex, a busy loop); node goroutines: %s",
		for_, strings.Join(all, "; "))
}
