package k8s_test

import (
	"context"
	"math/rand"
	"net"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/gohost/pipenet"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/benchtest"
	"github.com/leasesim/leasesim/simnet"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// benchDuration is the simulated length of one benchmark run: the API
// server and three client-go candidates electing, no faults, no store.
const benchDuration = 90 * time.Second

func benchCandidates() []k8s.NamedCandidate {
	opts := k8s.CandidateOptions{Timing: k8s.ScenarioTiming}
	out := make([]k8s.NamedCandidate, 3)
	for i, name := range []string{"c1", "c2", "c3"} {
		o := opts
		o.Start = time.Duration(i) * time.Second
		out[i] = k8s.NamedCandidate{Name: name, CandidateOptions: o}
	}
	return out
}

// BenchmarkElection runs the same client-go election (the simulated API
// server over net/http, three candidates running leaderelection with a
// LeaseLock over the typed client, one simulated 90 s, no faults) under
// the goroutine host and under plain testing/synctest (no faults, no
// trace, no history: what a Go user would write without leasesim), over
// an in-memory net.Pipe network (no latency) and over simnet (the
// goroutine host's own network, the same default latency, on its own):
// gohost/simnet is what the harness costs over the same network. Both report simulated seconds
// per wall second (sim-s/s) and the Lease requests served per run. One op
// is one run. Each workload first runs benchWarmUp times unmeasured.
func BenchmarkElection(b *testing.B) {
	workloads := electionWorkloads()
	for _, w := range workloads {
		for seed := range uint64(benchWarmUp) {
			if _, ok := w.run(1000 + seed); !ok {
				b.Fatalf("the %s warm-up run failed", w.name)
			}
		}
	}
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			var requests int
			seed := uint64(0)
			cpu0 := cpuTime()
			for b.Loop() {
				seed++
				n, ok := w.run(seed)
				if !ok {
					b.Fatalf("the %s run failed", w.name)
				}
				requests += n
			}
			report(b, requests, cpu0)
		})
	}
}

// benchWarmUp is how many runs of each workload BenchmarkElection makes
// before it measures any. A fresh process is slower for its first runs
// (its heap and the runtime's pacing grow to their working size): without
// them the first workload measured, always gohost, paid for it. In four
// processes its first -count round read 2-45% fewer sim-s per CPU second
// than its second (about 18% in two of them; 2026-11-29,
// docs/performance.md).
const benchWarmUp = 10

// electionWorkload is one way to run the election: run runs one seed and
// returns the Lease requests served, and whether the run went well.
type electionWorkload struct {
	name string
	run  func(seed uint64) (requests int, ok bool)
}

// electionWorkloads are the election under gohost, and under plain
// synctest over net.Pipe and over simnet.
func electionWorkloads() []electionWorkload {
	cfg := k8s.Setup{Candidates: benchCandidates(), Duration: benchDuration, Timing: k8s.ScenarioTiming}
	out := []electionWorkload{{name: "gohost", run: func(seed uint64) (requests int, ok bool) {
		ok = benchtest.Run("Election", func(t *testing.T) {
			res := gohost.Run(t, cfg.Config(seed), seed)
			if err := res.Err(); err != nil {
				t.Fatal(err)
			}
			requests = res.History.NumOps()
		})
		return requests, ok
	}}}
	for _, plain := range []struct {
		name string
		net  func(seed uint64) plainNet
	}{
		{"synctest", func(uint64) plainNet { return pipeNet{pipenet.New()} }},
		{"simnet", func(seed uint64) plainNet { return simNet{simnet.New(simnet.Seed(seed))} }},
	} {
		out = append(out, electionWorkload{name: plain.name, run: func(seed uint64) (requests int, ok bool) {
			ok = benchtest.Run("Election", func(t *testing.T) {
				synctest.Test(t, func(*testing.T) { requests = plainElection(t, seed, plain.net) })
			})
			return requests, ok
		}})
	}
	return out
}

// plainNet is the network of a run without the harness: net.Pipe
// connections (no latency), or simnet (the goroutine host's network, with
// its default 1-5 ms latency, on its own).
type plainNet interface {
	listen(addr string) (net.Listener, error)
	dialer(host string) func(ctx context.Context, network, addr string) (net.Conn, error)
}

type pipeNet struct{ *pipenet.Net }

func (p pipeNet) listen(addr string) (net.Listener, error) { return p.Listen(addr), nil }
func (p pipeNet) dialer(string) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, _, addr string) (net.Conn, error) { return p.Dial(ctx, addr) }
}

type simNet struct{ *simnet.Network }

func (s simNet) listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	return s.Host(host).Listen("tcp", addr)
}
func (s simNet) dialer(host string) func(context.Context, string, string) (net.Conn, error) {
	return s.Host(host).Dial
}

// report reports the requests per run, simulated seconds per wall
// second, and simulated seconds per second of the process's CPU time
// (user+system, from getrusage since cpu0): on a machine shared with
// other work the wall figure drops, the CPU one much less.
func report(b *testing.B, requests int, cpu0 time.Duration) {
	b.ReportMetric(float64(requests)/float64(b.N), "requests/run")
	b.ReportMetric(benchDuration.Seconds()*float64(b.N)/b.Elapsed().Seconds(), "sim-s/s")
	b.ReportMetric(benchDuration.Seconds()*float64(b.N)/(cpuTime()-cpu0).Seconds(), "sim-s/cpu-s")
}

// cpuTime is the process's CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// plainElection runs the election in the current bubble over the network
// mk makes and returns the Lease requests the server answered.
func plainElection(t *testing.T, seed uint64, mk func(uint64) plainNet) int {
	//lint:ignore SA1019 client-go's jitter reads the global source (main_test.go's randseednop=0)
	rand.Seed(int64(seed))
	pn := mk(seed)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	counter := &countRecorder{}
	l, err := pn.listen(k8s.APIServerName + k8s.APIPort)
	if err != nil {
		t.Fatal(err)
	}
	wg.Go(func() {
		if err := k8s.ServeAPI(ctx, l, k8s.NewLeaseStore(gohost.NewStorage()), counter); err != nil {
			t.Error(err)
		}
	})
	for _, c := range benchCandidates() {
		e := &plainEnv{name: c.Name, dial: pn.dialer(c.Name)}
		wg.Go(func() {
			if err := k8s.RunCandidate(ctx, e, nil, c.CandidateOptions); err != nil {
				t.Error(err)
			}
		})
	}
	time.Sleep(benchDuration)
	cancel()
	wg.Wait()
	// Let the closes still in flight on simnet arrive, so that client-go's
	// idle connections end: time stops once the bubble's main returns.
	time.Sleep(time.Second)
	return counter.n
}

// countRecorder counts the requests the server processed.
type countRecorder struct {
	mu sync.Mutex
	n  int
}

func (c *countRecorder) Processed(gohost.OpRef, history.Payload) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// plainEnv is a candidate's Env over a plain network, recording nothing;
// its calls carry refs so that the server counts them.
type plainEnv struct {
	name string
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	mu   sync.Mutex
	ids  uint64
}

func (e *plainEnv) Name() string                                { return e.name }
func (e *plainEnv) Incarnation() uint64                         { return 1 }
func (e *plainEnv) Believe(string, uint64, time.Time)           {}
func (e *plainEnv) EndBelief(string, uint64, history.EndReason) {}
func (e *plainEnv) Failpoint(string)                            {}
func (e *plainEnv) Act(string, uint64)                          {}
func (e *plainEnv) Return(gohost.OpRef)                         {}
func (e *plainEnv) Call(string, history.Payload) gohost.OpRef {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ids++
	return gohost.OpRef{Client: e.name, Incarnation: 1, ID: e.ids}
}

func (e *plainEnv) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return e.dial(ctx, network, addr)
}
