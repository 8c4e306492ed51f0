package hraft

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// ClientConfig shapes a client: a writer or a reader of the register.
type ClientConfig struct {
	// Start is when the client sends its first request.
	Start time.Duration
	// Writes makes the client a writer (unique values); otherwise it
	// reads.
	Writes bool
	// Every is the pause between requests, plus up to half of it more,
	// drawn from the node's seeded source.
	Every time.Duration
	// Timeout bounds one request, from the dial to the reply.
	Timeout time.Duration
	// Retry is the pause before the next attempt after a redirect or a
	// failure.
	Retry time.Duration
}

// DefaultWriter writes every 100–150 ms; DefaultReader reads every
// 20–30 ms, so that reads land in the short windows in which a member
// answers stale.
var (
	DefaultWriter = ClientConfig{Start: 3 * time.Second, Writes: true, Every: 100 * time.Millisecond,
		Timeout: 500 * time.Millisecond, Retry: 5 * time.Millisecond}
	DefaultReader = ClientConfig{Start: 3 * time.Second, Every: 20 * time.Millisecond,
		Timeout: 500 * time.Millisecond, Retry: 5 * time.Millisecond}
)

// Client returns a client's node function: it sends its requests to the
// member it believes leads (the first member at the start), follows a
// not_leader reply's redirect, and moves to the next member after a
// failure or a redirect that names no leader. Each request is an
// operation (Node.Call); the client records the reply's arrival
// (Node.Return) only for an ok reply: a failed write may still commit,
// so its outcome stays open.
func Client(members []string, cfg ClientConfig) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		rnd := n.Rand()
		target := members[0]
		next := func() {
			i := slices.Index(members, target)
			target = members[(i+1)%len(members)]
		}
		if !sleep(ctx, cfg.Start) {
			return nil
		}
		seq := 0
		for ctx.Err() == nil {
			in := history.Payload{Kind: "read", Resource: RegisterResource, Key: RegisterKey}
			if cfg.Writes {
				seq++
				in = history.Payload{Kind: "write", Resource: RegisterResource, Key: RegisterKey,
					Value: fmt.Sprintf("%s/%d-%d", n.Name(), n.Incarnation(), seq)}
			}
			rep, ref, err := send(ctx, n, target, in, cfg.Timeout)
			wait := cfg.Every + time.Duration(rnd.Int64N(int64(cfg.Every/2)+1))
			switch {
			case err != nil || rep.Status == statusFailed:
				next()
				wait = cfg.Retry
			case rep.Status == statusNotLeader:
				if rep.Leader != "" && rep.Leader != target {
					target = rep.Leader
				} else {
					next()
				}
				wait = cfg.Retry
			case rep.Status == statusOK:
				n.Return(ref)
			}
			if !sleep(ctx, wait) {
				return nil
			}
		}
		return nil
	}
}

// send sends one request to target's application server and reads the
// reply, within timeout.
func send(ctx context.Context, n *gohost.Node, target string, in history.Payload, timeout time.Duration) (reply, gohost.OpRef, error) {
	var rep reply
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := n.Dial(rctx, "tcp", target+AppPort)
	if err != nil {
		return rep, gohost.OpRef{}, err
	}
	defer c.Close()
	if d, ok := rctx.Deadline(); ok {
		_ = c.SetDeadline(d)
	}
	ref := n.Call(target, in)
	b, _ := json.Marshal(request{Op: in.Kind, Ref: ref.String(), Value: in.Value})
	if _, err := c.Write(append(b, '\n')); err != nil {
		return rep, ref, err
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return rep, ref, err
	}
	if err := json.Unmarshal(line, &rep); err != nil {
		return rep, ref, fmt.Errorf("hraft: reply from %s: %w", target, err)
	}
	return rep, ref, nil
}

// sleep waits d or until ctx ends, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
