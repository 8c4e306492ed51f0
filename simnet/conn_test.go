package simnet_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/simnet"
)

const lat = 10 * time.Millisecond

// pair listens on "b:80", dials it from "a" and returns both ends.
func pair(t *testing.T, n *simnet.Network) (client, server net.Conn) {
	t.Helper()
	l, err := n.Host("b").Listen("tcp", "b:80")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	client, err = n.Host("a").Dial(context.Background(), "tcp", "b:80")
	require.NoError(t, err)
	server, err = l.Accept()
	require.NoError(t, err)
	return client, server
}

// readAt reads once from c and returns what came and when, since start.
func readAt(c net.Conn, start time.Time) (string, time.Duration, error) {
	buf := make([]byte, 64)
	k, err := c.Read(buf)
	return string(buf[:k]), time.Since(start), err
}

func TestLatency(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := simnet.New(simnet.Latency(lat))
		start := time.Now()
		c, s := pair(t, n)
		assert.Equal(t, 2*lat, time.Since(start), "a dial takes one round trip")
		start = time.Now()
		_, err := c.Write([]byte("ping"))
		require.NoError(t, err)
		assert.Zero(t, time.Since(start), "Write does not block")
		got, at, err := readAt(s, start)
		require.NoError(t, err)
		assert.Equal(t, "ping", got)
		assert.Equal(t, lat, at, "one segment, one latency")
		c.Close()
		s.Close()
	})
}

// TestSeededLatency: a uniform latency depends on the seed, and the same
// seed gives the same arrivals.
func TestSeededLatency(t *testing.T) {
	arrivals := func(seed uint64) []time.Duration {
		var out []time.Duration
		synctest.Test(t, func(t *testing.T) {
			n := simnet.New(simnet.Seed(seed), simnet.UniformLatency(time.Millisecond, 50*time.Millisecond))
			c, s := pair(t, n)
			start := time.Now()
			for range 5 {
				_, err := c.Write([]byte("x"))
				require.NoError(t, err)
				_, at, err := readAt(s, start)
				require.NoError(t, err)
				out = append(out, at)
			}
			c.Close()
			s.Close()
		})
		return out
	}
	a := arrivals(1)
	assert.Equal(t, a, arrivals(1), "same seed, same arrivals")
	assert.NotEqual(t, a, arrivals(2), "another seed draws other latencies")
	assert.IsIncreasing(t, a, "one connection's segments arrive in order")
}

func TestPartitions(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cut      func(n *simnet.Network)
		heal     func(n *simnet.Network)
		toServer bool // does a's write reach b during the cut?
		toClient bool // does b's write reach a during the cut?
	}{
		{"symmetric", func(n *simnet.Network) { n.Partition("a", "b") }, func(n *simnet.Network) { n.Heal("b", "a") }, false, false},
		{"one way a to b", func(n *simnet.Network) { n.PartitionOneWay("a", "b") }, (*simnet.Network).HealAll, false, true},
		{"one way b to a", func(n *simnet.Network) { n.PartitionOneWay("b", "a") }, (*simnet.Network).HealAll, true, false},
		{"other hosts", func(n *simnet.Network) { n.Partition("a", "c") }, (*simnet.Network).HealAll, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := simnet.New(simnet.Latency(lat))
				c, s := pair(t, n)
				tc.cut(n)
				start := time.Now()
				_, err := c.Write([]byte("req"))
				require.NoError(t, err)
				_, err = s.Write([]byte("rep"))
				require.NoError(t, err)
				type arrival struct {
					got string
					at  time.Duration
					err error
				}
				arrived := [2]chan arrival{make(chan arrival, 1), make(chan arrival, 1)}
				for i, end := range []net.Conn{s, c} {
					go func() {
						got, at, err := readAt(end, start)
						arrived[i] <- arrival{got, at, err}
					}()
				}
				time.Sleep(time.Second)
				tc.heal(n)
				for i, r := range []struct {
					want    string
					through bool
				}{{"req", tc.toServer}, {"rep", tc.toClient}} {
					a := <-arrived[i]
					require.NoError(t, a.err)
					assert.Equal(t, r.want, a.got, "nothing is lost")
					if r.through {
						assert.Equal(t, lat, a.at, "%s: not cut", r.want)
					} else {
						assert.Equal(t, time.Second+lat, a.at, "%s: stalled until the heal, then one latency", r.want)
					}
				}
				c.Close()
				s.Close()
			})
		})
	}
}

// TestPartitionStallsDial: a dial across a cut waits for ctx, and one
// started before the heal completes after it.
func TestPartitionStallsDial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := simnet.New(simnet.Latency(lat))
		l, err := n.Host("b").Listen("tcp", "b:80")
		require.NoError(t, err)
		n.Partition("a", "b")
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err = n.Host("a").Dial(ctx, "tcp", "b:80")
		require.ErrorIs(t, err, context.DeadlineExceeded)
		go func() {
			time.Sleep(time.Second)
			n.HealAll()
		}()
		start := time.Now()
		c, err := n.Host("a").Dial(context.Background(), "tcp", "b:80")
		require.NoError(t, err)
		assert.Equal(t, time.Second+2*lat, time.Since(start))
		c.Close()
		l.Close()
	})
}

func TestResets(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reset func(n *simnet.Network) int
		want  int
		hit   bool // is the a-b connection reset?
	}{
		{"host a", func(n *simnet.Network) int { return n.ResetHost("a") }, 1, true},
		{"host b", func(n *simnet.Network) int { return n.ResetHost("b") }, 1, true},
		{"between b and a", func(n *simnet.Network) int { return n.ResetBetween("b", "a") }, 2, true},
		{"between a and c", func(n *simnet.Network) int { return n.ResetBetween("a", "c") }, 0, false},
		{"unknown host", func(n *simnet.Network) int { return n.ResetHost("zz") }, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := simnet.New(simnet.Latency(lat))
				c, s := pair(t, n)
				_, err := c.Write([]byte("before"))
				require.NoError(t, err)
				time.Sleep(2 * lat)
				assert.Equal(t, tc.want, tc.reset(n), "connections reset")
				for _, end := range []net.Conn{c, s} {
					if _, err := end.Write([]byte("late")); err != nil {
						assert.ErrorIs(t, err, syscall.ECONNRESET, "only a reset end refuses at once")
					}
				}
				time.Sleep(2 * lat)
				want := "before" // what arrived before the reset is read first
				if !tc.hit {
					want = "beforelate" // an untouched connection carries on
					got, _, err := readAt(c, time.Now())
					require.NoError(t, err)
					assert.Equal(t, "late", got)
				}
				got, _, err := readAt(s, time.Now())
				require.NoError(t, err)
				assert.Equal(t, want, got)
				for _, end := range []net.Conn{c, s} {
					require.NoError(t, end.SetReadDeadline(time.Now().Add(time.Second)))
					_, _, err := readAt(end, time.Now())
					if tc.hit {
						assert.ErrorIs(t, err, syscall.ECONNRESET)
						_, err = end.Write([]byte("x"))
						assert.ErrorIs(t, err, syscall.ECONNRESET, "a reset connection refuses writes")
					} else {
						assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "untouched")
					}
				}
				c.Close()
				s.Close()
			})
		})
	}
}

// TestLossResets: a lost segment resets its connection, and the seed
// decides which.
func TestLossResets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := simnet.New(simnet.Latency(lat), simnet.Loss(1))
		c, s := pair(t, n)
		_, err := c.Write([]byte("lost"))
		require.NoError(t, err)
		_, at, err := readAt(s, time.Now())
		assert.ErrorIs(t, err, syscall.ECONNRESET)
		assert.Equal(t, lat, at, "the receiver reads the reset when the segment would have come")
		_, _, err = readAt(c, time.Now())
		assert.ErrorIs(t, err, syscall.ECONNRESET, "the sender reads it once it travels back")
		c.Close()
		s.Close()
	})
	synctest.Test(t, func(t *testing.T) {
		n := simnet.New(simnet.Latency(lat), simnet.Loss(0))
		c, s := pair(t, n)
		_, err := c.Write([]byte("kept"))
		require.NoError(t, err)
		got, _, err := readAt(s, time.Now())
		require.NoError(t, err)
		assert.Equal(t, "kept", got)
		c.Close()
		s.Close()
	})
}

func TestDeadlines(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(c net.Conn, at time.Time) error
		op   func(c net.Conn) error
	}{
		{"read", net.Conn.SetReadDeadline, func(c net.Conn) error { _, err := c.Read(make([]byte, 1)); return err }},
		{"both on read", net.Conn.SetDeadline, func(c net.Conn) error { _, err := c.Read(make([]byte, 1)); return err }},
		{"write", net.Conn.SetWriteDeadline, func(c net.Conn) error { _, err := c.Write([]byte("x")); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := simnet.New(simnet.Latency(lat))
				c, s := pair(t, n)
				start := time.Now()
				require.NoError(t, tc.set(c, start.Add(50*time.Millisecond)))
				if tc.name == "write" {
					time.Sleep(50 * time.Millisecond) // a write fails only once its deadline passed
				}
				err := tc.op(c)
				assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
				assert.Equal(t, 50*time.Millisecond, time.Since(start), "on the bubble's clock")
				var ne net.Error
				require.ErrorAs(t, err, &ne)
				assert.True(t, ne.Timeout())
				c.Close()
				s.Close()
			})
		})
	}
}

func TestCloseSemantics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := simnet.New(simnet.Latency(lat))
		c, s := pair(t, n)
		_, err := c.Write([]byte("last words"))
		require.NoError(t, err)
		require.NoError(t, c.Close())
		got, err := io.ReadAll(s)
		require.NoError(t, err, "an orderly close is EOF")
		assert.Equal(t, "last words", string(got), "after the data sent before it")
		_, err = c.Write([]byte("x"))
		assert.ErrorIs(t, err, net.ErrClosed)
		_, err = c.Read(make([]byte, 1))
		assert.ErrorIs(t, err, net.ErrClosed)
		assert.ErrorIs(t, c.Close(), net.ErrClosed, "closing twice")
		require.NoError(t, s.Close())
	})
	synctest.Test(t, func(t *testing.T) {
		n := simnet.New(simnet.Latency(lat))
		l, err := n.Host("b").Listen("tcp", ":80")
		require.NoError(t, err)
		assert.Equal(t, "b:80", l.Addr().String())
		done := make(chan error)
		go func() {
			_, err := l.Accept()
			done <- err
		}()
		synctest.Wait()
		require.NoError(t, l.Close())
		assert.ErrorIs(t, <-done, net.ErrClosed, "Close wakes a blocked Accept")
		assert.ErrorIs(t, l.Close(), net.ErrClosed, "closing twice")
		_, err = n.Host("a").Dial(context.Background(), "tcp", "b:80")
		assert.ErrorIs(t, err, syscall.ECONNREFUSED, "nothing listens any more")
		l2, err := n.Host("b").Listen("tcp", "b:80")
		require.NoError(t, err, "the port is free again")
		l2.Close()
	})
}

func TestBadAddresses(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(n *simnet.Network) error
		want string
		is   error
	}{
		{"unknown host", func(n *simnet.Network) error { return dial(n, "tcp", "nowhere:80") }, "no such host", nil},
		{"no port", func(n *simnet.Network) error { return dial(n, "tcp", "b") }, "missing port in address", nil},
		{"udp", func(n *simnet.Network) error { return dial(n, "udp", "b:80") }, `simnet: network "udp" not supported (tcp only)`, nil},
		{"nothing listens", func(n *simnet.Network) error { return dial(n, "tcp", "b:81") }, "connection refused", syscall.ECONNREFUSED},
		{"listen on another host", func(n *simnet.Network) error { return listen(n, "a:80") }, `simnet: node b cannot listen on host "a"`, nil},
		{"listen on a bad port", func(n *simnet.Network) error { return listen(n, "b:http") }, `simnet: bad port "http" in "b:http"`, nil},
		{"listen twice", func(n *simnet.Network) error { return listen(n, "b:80") }, "address already in use", syscall.EADDRINUSE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := simnet.New()
				l, err := n.Host("b").Listen("tcp", "b:80")
				require.NoError(t, err)
				defer l.Close()
				n.Host("a")
				err = tc.do(n)
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				var op *net.OpError
				assert.ErrorAs(t, err, &op, "a *net.OpError, as package net's")
				if tc.is != nil {
					assert.ErrorIs(t, err, tc.is)
				}
			})
		})
	}
}

func dial(n *simnet.Network, network, address string) error {
	c, err := n.Host("a").Dial(context.Background(), network, address)
	if err == nil {
		c.Close()
	}
	return err
}

func listen(n *simnet.Network, address string) error {
	l, err := n.Host("b").Listen("tcp", address)
	if err == nil {
		l.Close()
		return errors.New("listened")
	}
	return err
}

func TestBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  simnet.Option
		want string
	}{
		{"loss above 1", simnet.Loss(1.5), "loss 1.5 is not a probability"},
		{"negative loss", simnet.Loss(-0.1), "loss -0.1 is not a probability"},
		{"latency range upside down", simnet.UniformLatency(time.Second, time.Millisecond), "latency"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				err, _ := recover().(error)
				require.ErrorIs(t, err, simnet.ErrBadOption)
				assert.Contains(t, err.Error(), tc.want)
			}()
			simnet.New(tc.opt)
		})
	}
}

func TestBadHostNames(t *testing.T) {
	for _, name := range []string{"", "api:80", "::1"} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				msg, _ := recover().(string)
				assert.Contains(t, msg, fmt.Sprintf("simnet: bad host name %q", name))
			}()
			simnet.New().Host(name)
			t.Error("no panic")
		})
	}
}
