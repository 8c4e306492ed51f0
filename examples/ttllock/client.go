package ttllock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// FailpointBeforeWrite is reached by a client after it decided to write
// and before the write leaves: where a GC pause does its harm.
const FailpointBeforeWrite = "before-write"

// Client configures one client.
type Client struct {
	// TTL is the lock's TTL, as the client assumes it.
	TTL time.Duration
	// Start is when the client first tries to acquire.
	Start time.Duration
	// Hold is how long it keeps the lock before it releases it.
	Hold time.Duration
	// Broken makes the client treat a failed renewal as a success (the
	// bug: it keeps believing while cut off).
	Broken bool
}

// Run returns the client's node function: acquire, hold for Hold while
// writing every 250 ms, release, and start over until ctx ends.
func (cfg Client) Run(ctx context.Context, n *gohost.Node) error {
	store := n.NewStoreClient(StoreNode + gohost.StorePort)
	defer store.Close()
	if !sleep(ctx, cfg.Start) {
		return nil
	}
	for ctx.Err() == nil {
		if err := cfg.holdOnce(ctx, n, store); err != nil && !sleep(ctx, 250*time.Millisecond) {
			return nil
		}
	}
	return nil
}

var errNotGranted = errors.New("not granted")

// holdOnce acquires the lock once and holds it for Hold.
func (cfg Client) holdOnce(ctx context.Context, n *gohost.Node, store *gohost.StoreClient) error {
	me := fmt.Sprintf("%s/%d", n.Name(), n.Incarnation())
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	c, err := n.Dial(dctx, "tcp", Addr)
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	sent := time.Now()
	reply, err := rpc(c, r, sent.Add(cfg.TTL/2), "ACQUIRE "+me)
	if err != nil {
		return err
	}
	var token uint64
	if _, err := fmt.Sscanf(reply, "OK %d", &token); err != nil {
		sleep(ctx, 500*time.Millisecond)
		return errNotGranted
	}
	deadline, renewed, started := sent.Add(cfg.TTL), sent, time.Now()
	n.Believe(Resource, token, deadline)
	for ctx.Err() == nil && time.Since(started) < cfg.Hold {
		if time.Since(renewed) > cfg.TTL/3 {
			if deadline, renewed, err = cfg.renew(n, c, r, me, token, deadline); err != nil {
				return err
			}
		}
		if !time.Now().Before(deadline) {
			n.EndBelief(Resource, token, history.EndDeadline)
			return nil
		}
		n.Act(Resource, token) // the decision to write: the action counts here
		n.Failpoint(FailpointBeforeWrite)
		wctx, cancel := context.WithTimeout(ctx, cfg.TTL/2)
		err := store.Write(wctx, Resource, token, "data", me)
		cancel()
		if errors.Is(err, gohost.ErrFenced) {
			n.EndBelief(Resource, token, history.EndFenced)
			return nil
		}
		if !sleep(ctx, 250*time.Millisecond) {
			return nil
		}
	}
	n.EndBelief(Resource, token, history.EndRelease)
	_, _ = rpc(c, r, time.Now().Add(cfg.TTL/2), "RELEASE "+me)
	sleep(ctx, 500*time.Millisecond)
	return nil
}

// renew renews the lock; it returns the new deadline and renewal time, or
// ends the belief and returns an error when the renewal failed (unless the
// client is broken).
func (cfg Client) renew(n *gohost.Node, c net.Conn, r *bufio.Reader, me string, token uint64,
	deadline time.Time) (time.Time, time.Time, error) {
	sent := time.Now()
	reply, err := rpc(c, r, deadline, fmt.Sprintf("RENEW %s %d", me, token))
	switch {
	case err == nil && reply == "OK":
		deadline = sent.Add(cfg.TTL)
	case cfg.Broken: // the bug: assume the renewal went through
		sent = time.Now()
		deadline = sent.Add(cfg.TTL)
	default:
		n.EndBelief(Resource, token, history.EndLost)
		return deadline, sent, errors.Join(err, errors.New(reply))
	}
	n.Believe(Resource, token, deadline)
	return deadline, sent, nil
}

// rpc sends one line and reads the reply before deadline.
func rpc(c net.Conn, r *bufio.Reader, deadline time.Time, line string) (string, error) {
	if err := c.SetDeadline(deadline); err != nil {
		return "", err
	}
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	reply, err := r.ReadString('\n')
	return strings.TrimSpace(reply), err
}

// sleep waits d or until ctx ends; it reports whether d passed.
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
