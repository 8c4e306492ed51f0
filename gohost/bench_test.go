package gohost_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/gohost/pipenet"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/benchtest"
)

// benchDuration is the simulated length of one benchmark run: the lock
// service with three clients, no faults.
const benchDuration = 60 * time.Second

var benchClients = map[string]clientConfig{"c1": defaultClient, "c2": withStart(defaultClient, 100*time.Millisecond),
	"c3": withStart(defaultClient, 200*time.Millisecond)}

// BenchmarkLockWorkload runs the tiny lock workload (a lock server, a
// fenced store, three clients, one simulated minute, no faults) under the
// goroutine host and as the same code under plain testing/synctest over
// net.Pipe (no latency, no faults, no trace, no history): what a Go user
// would write without leasesim. Both report simulated seconds per wall
// second (sim-s/s) and the writes the store answered per run, so that the
// two can be seen to do comparable work. One op is one run.
func BenchmarkLockWorkload(b *testing.B) {
	b.Run("gohost", func(b *testing.B) {
		cfg := lockConfig(benchDuration, faults.Schedule{}, benchClients, "c1", "c2", "c3")
		var writes int
		seed := uint64(0)
		for b.Loop() {
			seed++
			ok := benchtest.Run("LockWorkload", func(t *testing.T) {
				res := gohost.Run(t, cfg, seed)
				if err := res.Err(); err != nil {
					t.Fatal(err)
				}
				writes += res.History.NumOps()
			})
			if !ok {
				b.Fatal("the gohost run failed")
			}
		}
		report(b, writes)
	})
	b.Run("synctest", func(b *testing.B) {
		var writes int
		for b.Loop() {
			ok := benchtest.Run("LockWorkload", func(t *testing.T) {
				synctest.Test(t, func(*testing.T) { writes += plainWorkload() })
			})
			if !ok {
				b.Fatal("the synctest run failed")
			}
		}
		report(b, writes)
	})
}

func report(b *testing.B, writes int) {
	b.ReportMetric(float64(writes)/float64(b.N), "writes/run")
	b.ReportMetric(benchDuration.Seconds()*float64(b.N)/b.Elapsed().Seconds(), "sim-s/s")
}

// plainWorkload runs the lock workload in the current bubble over
// net.Pipe and returns the writes the store answered.
func plainWorkload() int {
	pn := pipenet.New()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var writes int
	var mu sync.Mutex
	run := func(name string, f func(context.Context, env) error) {
		e := &plainEnv{name: name, net: pn, st: gohost.NewStorage(), writes: &writes, mu: &mu}
		wg.Go(func() { _ = f(ctx, e) })
	}
	run("lock", lockServer)
	run("store", storeServer)
	for _, c := range []string{"c1", "c2", "c3"} {
		run(c, lockClient(benchClients[c]))
	}
	time.Sleep(benchDuration)
	cancel()
	wg.Wait()
	return writes
}

// plainEnv is the lock service's env over a pipenet.Net, recording nothing but
// a count of the store's writes.
type plainEnv struct {
	name   string
	net    *pipenet.Net
	st     *gohost.Storage
	writes *int
	mu     *sync.Mutex
}

func (e *plainEnv) Name() string                                { return e.name }
func (e *plainEnv) Incarnation() uint64                         { return 1 }
func (e *plainEnv) Storage() *gohost.Storage                    { return e.st }
func (e *plainEnv) Failpoint(string)                            {}
func (e *plainEnv) Believe(string, uint64, time.Time)           {}
func (e *plainEnv) EndBelief(string, uint64, history.EndReason) {}
func (e *plainEnv) RecordWrite(gohost.Write) {
	e.mu.Lock()
	*e.writes++
	e.mu.Unlock()
}

func (e *plainEnv) Listen(_, addr string) (net.Listener, error) {
	return e.net.Listen(e.name + addr), nil
}

func (e *plainEnv) Dial(ctx context.Context, _, addr string) (net.Conn, error) {
	return e.net.Dial(ctx, addr)
}
