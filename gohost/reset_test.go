package gohost_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/sim"
)

// bubbleEpoch is where a synctest bubble's clock starts: true time zero.
var bubbleEpoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// since0 is true time since the start of the run.
func since0() time.Duration { return time.Since(bubbleEpoch) }

// counter is a server that commits every request (counts it in its
// durable storage) and replies "ok N"; commits is the count so far.
func counter(commits *int) func(context.Context, *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		var mu sync.Mutex
		return serve(ctx, n, "srv:9", func(string) string {
			mu.Lock()
			defer mu.Unlock()
			v, _ := n.Storage().Get("commits")
			*commits = len(v) + 1
			n.Storage().Put("commits", make([]byte, *commits))
			return fmt.Sprintf("ok %d", *commits)
		})
	}
}

// requester sends one request at each planned true time of its life
// (sequentially: a late reply delays the next), redialling after an
// error, and logs "sent -> outcome at t" for each.
func requester(plan map[uint64][]time.Duration, log *[]string) func(context.Context, *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		var c net.Conn
		var r *bufio.Reader
		for _, at := range plan[n.Incarnation()] {
			if !sleep(ctx, at-since0()) {
				return nil
			}
			sent := since0()
			outcome := func() string {
				if c == nil {
					var err error
					if c, err = n.Dial(ctx, "tcp", "srv:9"); err != nil {
						return describe(err)
					}
					r = bufio.NewReader(c)
				}
				if _, err := c.Write([]byte("req\n")); err != nil {
					return describe(err)
				}
				line, err := r.ReadString('\n')
				if err != nil {
					return describe(err)
				}
				return strings.TrimSpace(line)
			}()
			if !strings.HasPrefix(outcome, "ok") && c != nil {
				c.Close()
				c = nil
			}
			*log = append(*log, fmt.Sprintf("%v -> %s at %v", sent, outcome, since0()))
		}
		<-ctx.Done()
		if c != nil {
			c.Close()
		}
		return nil
	}
}

func describe(err error) string {
	switch {
	case errors.Is(err, syscall.ECONNRESET):
		return "reset"
	case errors.Is(err, gohost.ErrCrashed):
		return "crashed"
	}
	return err.Error()
}

// traced are the kinds of event TestResetsAndLostReplies compares.
var traced = map[string]bool{"lose deliver": true, "drop deliver": true, "failpoint-hit": true, "reset": true,
	"stall deliver": true, "crash": true, "resume": true}

// Link loss resets the connection that crosses the lossy link, and a
// reply trigger loses (or holds) a reply after the server committed: each
// case's client log, server commits and trace are exact (1ms links).
func TestResetsAndLostReplies(t *testing.T) {
	ms := time.Millisecond
	loss := &sim.LinkConfig{Latency: sim.FixedDist(ms), Loss: 1}
	plan := map[uint64][]time.Duration{1: {100 * ms, 300 * ms, 400 * ms}, 2: {500 * ms}}
	for _, tc := range []struct {
		name    string
		events  []faults.Event
		log     []string
		commits int
		trace   []string // the trace's events of the traced kinds, in order
		notes   []string // Result.NotApplied
	}{{
		name: "link loss resets the connection",
		events: []faults.Event{
			{At: 250 * ms, Kind: faults.KindLink, From: "cli", To: "srv", Link: loss},
			{At: 350 * ms, Kind: faults.KindLinkReset}},
		// The first request dials (a round trip). The request at 300ms is lost on the way (301ms): the server
		// never sees it, the client reads the reset it sends back.
		log:     []string{"100ms -> ok 1 at 104ms", "300ms -> reset at 302ms", "400ms -> ok 2 at 404ms"},
		commits: 2,
		trace:   []string{"301ms lose deliver cli -> srv cli.1#1>srv:9 4 bytes: link loss", "302ms reset srv -> cli cli.1#1>srv:9<"},
		notes: []string{"250ms link cli -> srv latency fixed 1ms..1ms loss 1 dup 0 reorder 0: loss is applied as connection resets: " +
			"a stream cannot lose bytes silently, so a lost segment resets its connection"},
	}, {
		name: "reply lost after the server acted",
		events: []faults.Event{
			{At: 200 * ms, Kind: faults.KindFailpoint, Node: "srv", Failpoint: gohost.TriggerReplyLost, Action: faults.ActionCrash}},
		// The server commits the request at 301ms (commit 2); its reply
		// is lost at 302ms and the client reads a reset instead.
		log:     []string{"100ms -> ok 1 at 104ms", "300ms -> reset at 302ms", "400ms -> ok 3 at 404ms"},
		commits: 3,
		trace: []string{`302ms failpoint-hit srv "reply-lost" crash`,
			"302ms lose deliver srv -> cli cli.1#1>srv:9< 5 bytes: reply lost after the server acted",
			"303ms reset cli -> srv cli.1#1>srv:9"},
	}, {
		name: "reply held after the server acted",
		events: []faults.Event{
			{At: 200 * ms, Kind: faults.KindFailpoint, Node: "srv", Failpoint: gohost.TriggerReplyLost, Action: faults.ActionPause, Duration: time.Second}},
		// Held from 302ms to 1.302s, then 1ms on the wire.
		log:     []string{"100ms -> ok 1 at 104ms", "300ms -> ok 2 at 1.303s", "1.303s -> ok 3 at 1.305s"},
		commits: 3,
		trace: []string{`302ms failpoint-hit srv "reply-lost" pause`,
			"302ms stall deliver srv -> cli cli.1#1>srv:9< 5 bytes"},
	}, {
		name: "client crashes on the reply",
		events: []faults.Event{
			{At: 200 * ms, Kind: faults.KindFailpoint, Node: "cli", Failpoint: gohost.TriggerOnReply, Action: faults.ActionCrash},
			{At: 450 * ms, Kind: faults.KindRestart, Node: "cli"}},
		// Committed at 301ms; the client crashes as the reply arrives and
		// its next life starts over.
		log:     []string{"100ms -> ok 1 at 104ms", "300ms -> crashed at 302ms", "500ms -> ok 3 at 504ms"},
		commits: 3,
		// Two resets reach the server: the crash's, and the answer to the
		// reply that reached a dead endpoint.
		trace: []string{`302ms failpoint-hit cli "on-reply" crash`, "302ms crash cli incarnation 1: failpoint on-reply",
			"303ms reset cli -> srv cli.1#1>srv:9", "303ms reset cli -> srv cli.1#1>srv:9"},
	}, {
		name: "client paused on the reply",
		events: []faults.Event{
			{At: 200 * ms, Kind: faults.KindFailpoint, Node: "cli", Failpoint: gohost.TriggerOnReply, Action: faults.ActionPause, Duration: time.Second}},
		log:     []string{"100ms -> ok 1 at 104ms", "300ms -> ok 2 at 1.303s", "1.303s -> ok 3 at 1.305s"},
		commits: 3,
		trace: []string{`302ms failpoint-hit cli "on-reply" pause`,
			"302ms stall deliver srv -> cli cli.1#1>srv:9< 5 bytes", "1.302s resume cli"},
		notes: []string{"pause: applied as a pause of the node's I/O (reads, accepts and dials block; writes wait in " +
			"the send buffer and leave at the resume); its code and timers kept running: not a stop of the world"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			var commits int
			cfg := gohost.Config{Duration: 2 * time.Second, Latency: sim.FixedDist(ms), Verify: true,
				Schedule: faults.Schedule{Version: faults.Version, HealAt: 1900 * ms, Events: tc.events},
				Nodes:    []gohost.NodeSpec{{Name: "srv", Run: counter(&commits)}, {Name: "cli", Run: requester(plan, &log)}}}
			res := gohost.Run(t, cfg, 1)
			require.NoError(t, res.Err())
			assert.Equal(t, "verified", res.Level.String())
			// Verify ran twice: the second run's log follows the first.
			require.Len(t, log, 2*len(tc.log), "%q", log)
			assert.Equal(t, tc.log, log[len(tc.log):])
			assert.Equal(t, tc.commits, commits)
			var got []string
			for _, e := range res.Events {
				if traced[e.Kind] {
					s := fmt.Sprintf("%v %s %s", e.At, e.Kind, e.Node)
					if e.Peer != "" {
						s += " -> " + e.Peer
					}
					if e.Detail != "" {
						s += " " + e.Detail
					}
					got = append(got, s)
				}
			}
			assert.Equal(t, tc.trace, got)
			assert.Equal(t, tc.notes, res.NotApplied)
		})
	}
}

// A link that loses a third of its segments both ways resets connections
// at seeded, reproducible points; the client keeps redialling.
func TestPartialLossIsDeterministic(t *testing.T) {
	ms := time.Millisecond
	var plan []time.Duration
	for i := range 40 {
		plan = append(plan, time.Duration(i+1)*50*ms)
	}
	lossy := &sim.LinkConfig{Latency: sim.UniformDist(ms, 5*ms), Loss: 0.3}
	var log []string
	var commits int
	cfg := gohost.Config{Duration: 3 * time.Second, Verify: true,
		Schedule: faults.Schedule{Version: faults.Version, HealAt: 2500 * ms, Events: []faults.Event{
			{At: 10 * ms, Kind: faults.KindLink, From: faults.AnyNode, To: faults.AnyNode, Link: lossy}}},
		Nodes: []gohost.NodeSpec{{Name: "srv", Run: counter(&commits)},
			{Name: "cli", Run: requester(map[uint64][]time.Duration{1: plan}, &log)}}}
	res := gohost.Run(t, cfg, 4)
	require.NoError(t, res.Err())
	assert.Equal(t, "verified", res.Level.String())
	var lost, resets int
	for _, e := range res.Events {
		lost += b2i(e.Kind == "lose deliver")
	}
	for _, l := range log[len(plan):] {
		resets += b2i(strings.Contains(l, "-> reset"))
	}
	// Every loss costs one request: lost on the way (never committed) or
	// on the way back (committed, reply lost).
	assert.Equal(t, 40, len(log[len(plan):]))
	assert.Equal(t, lost, resets, "%q", log[len(plan):])
	assert.Equal(t, 40-resets, commits-(lost-lostRequests(res.Events)), "ok replies are commits whose reply arrived")
	assert.Equal(t, 26, lost, "golden count of lost segments for seed 4")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lostRequests counts the lost segments that were requests (client to
// server).
func lostRequests(events []gohost.Event) (n int) {
	for _, e := range events {
		n += b2i(e.Kind == "lose deliver" && e.Node == "cli")
	}
	return n
}
