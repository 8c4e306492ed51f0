package redsync

import (
	"bufio"
	"context"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/gohost/pipenet"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/benchtest"
)

// benchDuration is the simulated length of one benchmark run: the
// simulated Redis, a store and three redsync holders contending for a
// minute, with the INCR token, no faults.
const benchDuration = time.Minute

func benchSetup() Setup {
	return Setup{Holders: holders(3, 700*time.Millisecond), Fencing: Fenced, Duration: benchDuration}
}

// BenchmarkContention runs the same workload under the goroutine host
// (network model, trace, history, no checkers, no second run) and under
// plain testing/synctest over net.Pipe (no latency, no faults, no
// recording): what a Go user would write without leasesim. Both report
// simulated seconds per wall second (sim-s/s) and the writes per run.
func BenchmarkContention(b *testing.B) {
	b.Run("gohost", func(b *testing.B) {
		cfg := benchSetup().Config()
		var writes int
		seed := uint64(0)
		for b.Loop() {
			seed++
			if !benchtest.Run("Contention", func(t *testing.T) {
				res := gohost.Run(t, cfg, seed)
				if err := res.Err(); err != nil {
					t.Fatal(err)
				}
				for _, op := range res.History.AllOps() {
					if op.Server == StoreNode {
						writes++
					}
				}
			}) {
				b.Fatal("the gohost run failed")
			}
		}
		report(b, writes)
	})
	b.Run("synctest", func(b *testing.B) {
		var writes int
		for b.Loop() {
			if !benchtest.Run("Contention", func(t *testing.T) { synctest.Test(t, func(*testing.T) { writes += plainWorkload(benchSetup()) }) }) {
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

// plainWorkload runs the setup's Redis, a store and holders in the
// current bubble over net.Pipe and returns the writes the store took.
func plainWorkload(s Setup) int {
	pn := pipenet.New()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var writes int
	var mu sync.Mutex
	env := func(name string, seed uint64) *plainEnv {
		return &plainEnv{name: name, net: pn, st: gohost.NewStorage(), rnd: rand.New(rand.NewPCG(seed, 1))}
	}
	wg.Go(func() { _ = Serve(ctx, env(RedisNode, 0), time.Now, s.Server) })
	wg.Go(func() { _ = plainStore(ctx, env(StoreNode, 0), &writes, &mu) })
	for i, h := range s.Holders {
		h.Token = s.Fencing != NoToken
		e := env(HolderName(i), uint64(i+1))
		wg.Go(func() { _ = RunHolder(ctx, e, &plainStoreClient{e: e}, h) })
	}
	time.Sleep(s.Duration)
	cancel()
	wg.Wait()
	return writes
}

// plainStore is a store that accepts every write: one line a write.
func plainStore(ctx context.Context, e *plainEnv, writes *int, mu *sync.Mutex) error {
	l, err := e.Listen("tcp", gohost.StorePort)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		<-ctx.Done()
		l.Close()
	})
	for {
		c, err := l.Accept()
		if err != nil {
			break
		}
		wg.Go(func() {
			defer c.Close()
			go func() { <-ctx.Done(); c.Close() }()
			r := bufio.NewReader(c)
			for {
				if _, err := r.ReadString('\n'); err != nil {
					return
				}
				mu.Lock()
				*writes++
				mu.Unlock()
				if _, err := c.Write([]byte("OK\n")); err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return nil
}

// plainStoreClient writes one line and reads the answer.
type plainStoreClient struct {
	e    *plainEnv
	conn net.Conn
	r    *bufio.Reader
}

func (c *plainStoreClient) Write(ctx context.Context, resource string, token uint64, key, value string) error {
	if c.conn == nil {
		conn, err := c.e.Dial(ctx, "tcp", StoreNode+gohost.StorePort)
		if err != nil {
			return err
		}
		c.conn, c.r = conn, bufio.NewReader(conn)
	}
	if d, ok := ctx.Deadline(); ok {
		_ = c.conn.SetDeadline(d)
	}
	_, err := c.conn.Write([]byte(strings.Join([]string{resource, key, value}, " ") + "\n"))
	if err == nil {
		_, err = c.r.ReadString('\n')
	}
	if err != nil {
		c.Close()
	}
	return err
}

func (c *plainStoreClient) Close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// plainEnv is Env over a pipenet.Net, recording nothing.
type plainEnv struct {
	name string
	net  *pipenet.Net
	st   *gohost.Storage
	rnd  *rand.Rand
}

func (e *plainEnv) Name() string                                { return e.name }
func (e *plainEnv) Incarnation() uint64                         { return 1 }
func (e *plainEnv) Rand() *rand.Rand                            { return e.rnd }
func (e *plainEnv) Storage() *gohost.Storage                    { return e.st }
func (e *plainEnv) Failpoint(string)                            {}
func (e *plainEnv) Believe(string, uint64, time.Time)           {}
func (e *plainEnv) EndBelief(string, uint64, history.EndReason) {}
func (e *plainEnv) Release(string, uint64)                      {}
func (e *plainEnv) Act(string, uint64)                          {}
func (e *plainEnv) Call(string, history.Payload) gohost.OpRef   { return gohost.OpRef{} }
func (e *plainEnv) Processed(gohost.OpRef, history.Payload)     {}
func (e *plainEnv) Return(gohost.OpRef)                         {}

func (e *plainEnv) Listen(_, addr string) (net.Listener, error) {
	return e.net.Listen(e.name + addr), nil
}

func (e *plainEnv) Dial(ctx context.Context, _, addr string) (net.Conn, error) {
	return e.net.Dial(ctx, addr)
}
