package gohost_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/sim"
)

// staller asks the counter over one connection at 100ms and 300ms (the
// second with a 500ms read deadline), over a new connection at 900ms, and
// reads the first connection again at 1.6s, logging each outcome.
func staller(log *[]string) func(context.Context, *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		ask := func(c net.Conn, r *bufio.Reader, write bool, deadline time.Duration) string {
			if write {
				if _, err := c.Write([]byte("req\n")); err != nil {
					return describe(err)
				}
			}
			if deadline > 0 {
				_ = c.SetReadDeadline(time.Now().Add(deadline))
			}
			line, err := r.ReadString('\n')
			if err != nil {
				return describe(err)
			}
			return strings.TrimSpace(line)
		}
		note := func(what, outcome string) {
			*log = append(*log, fmt.Sprintf("%v %s -> %s", since0(), what, outcome))
		}
		sleep(ctx, 100*time.Millisecond-since0())
		old, err := n.Dial(ctx, "tcp", "srv:9")
		if err != nil {
			return err
		}
		defer old.Close()
		oldR := bufio.NewReader(old)
		note("old", ask(old, oldR, true, 0))
		sleep(ctx, 300*time.Millisecond-since0())
		note("old", ask(old, oldR, true, 500*time.Millisecond))
		sleep(ctx, 900*time.Millisecond-since0())
		fresh, err := n.Dial(ctx, "tcp", "srv:9")
		if err != nil {
			note("dial", describe(err))
		} else {
			defer fresh.Close()
			note("new", ask(fresh, bufio.NewReader(fresh), true, 0))
		}
		sleep(ctx, 1600*time.Millisecond-since0())
		note("old", ask(old, oldR, false, 200*time.Millisecond))
		<-ctx.Done()
		return nil
	}
}

// A stall-conns fault stalls the connection open between cli and srv
// without a reset: the request sent on it at 300ms times out, a new
// connection works, and the heal at 1.5s sends the stalled request on
// (the server commits it then, after the new connection's).
func TestStallConnsStallsOpenConnectionsOnly(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name    string
		events  []faults.Event
		log     []string
		commits int
	}{{
		name: "no fault",
		log: []string{"104ms old -> ok 1", "302ms old -> ok 2", "904ms new -> ok 3",
			"1.8s old -> read tcp cli:40001->srv:9: i/o timeout"},
		commits: 3,
	}, {
		name: "stalled at 200ms, healed at 1.5s",
		events: []faults.Event{
			{At: 200 * ms, Kind: faults.KindStallConns, Groups: [][]string{{"cli"}, {"srv"}}},
			{At: 1500 * ms, Kind: faults.KindHeal}},
		log: []string{"104ms old -> ok 1", "800ms old -> read tcp cli:40001->srv:9: i/o timeout", "904ms new -> ok 2",
			"1.6s old -> ok 3"},
		commits: 3,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			var commits int
			cfg := gohost.Config{Duration: 2 * time.Second, Latency: sim.FixedDist(ms), Verify: true,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 1900 * ms, Events: tc.events},
				Nodes:    []gohost.NodeSpec{{Name: "srv", Run: counter(&commits)}, {Name: "cli", Run: staller(&log)}}}
			res := gohost.Run(t, cfg, 1)
			require.NoError(t, res.Err())
			assert.Equal(t, "verified", res.Level.String())
			require.Len(t, log, 2*len(tc.log), "%q", log)
			assert.Equal(t, tc.log, log[len(tc.log):])
			assert.Equal(t, tc.commits, commits)
			var stalls []string
			for _, e := range res.Events {
				if e.Kind == "stall-conns" {
					stalls = append(stalls, fmt.Sprintf("%v %s", e.At, e.Detail))
				}
			}
			if len(tc.events) > 0 {
				assert.Equal(t, []string{"200ms 1 connections stalled"}, stalls)
			}
		})
	}
}
