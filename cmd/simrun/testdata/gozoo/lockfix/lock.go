// Package lockfix is simrun's test fixture for goroutine-host zoo modules:
// a lock server that grants one lock with a TTL and a fencing token, the
// shared fenced store, and clients written as plain goroutine code over
// the simulated network. One client is careful (it stops believing at its
// deadline); the broken one assumes a failed renewal went through, so a
// partition or a pause that cuts it off makes two holders believe at once
// (P1) on some seeds, while the fenced store still refuses its stale
// writes (P2).
package lockfix

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

const (
	lockAddr = "lock:7000"
	resource = "lock"
	// defaultTTL is the lock's TTL unless the knob "ttl" sets it.
	defaultTTL = 2 * time.Second
)

// Knobs are the fixture's knobs: the lock's TTL.
var Knobs = []gohost.Knob{{Name: "ttl", Doc: "the lock's TTL (clients renew every TTL/3)", Default: defaultTTL,
	Min: 500 * time.Millisecond, Max: 10 * time.Second}}

// TunedScenarios are Scenarios with the knobs of k set.
func TunedScenarios(k gohost.KnobValues) ([]scenarios.Scenario, error) {
	ttl := k.Get("ttl", defaultTTL)
	return []scenarios.Scenario{scenario("careful-client", false, ttl), scenario("broken-client", true, ttl)}, nil
}

// Scenarios are the fixture's scenarios.
func Scenarios() []scenarios.Scenario {
	scs, _ := TunedScenarios(nil) // never an error
	return scs
}

func scenario(name string, broken bool, ttl time.Duration) scenarios.Scenario {
	doc := "two careful clients take turns under partitions and pauses"
	if broken {
		doc = "a client that assumes its failed renewals went through, under partitions and pauses"
	}
	return scenarios.Scenario{
		Name: name, Doc: doc,
		Goroutines: func(uint64) gohost.Config {
			return gohost.Config{Duration: 20 * time.Second,
				Nodes: []gohost.NodeSpec{{Name: "lock", Run: lockServer(ttl)},
					{Name: "store", Run: gohost.FencedStore(gohost.StoreOptions{})},
					{Name: "c1", Run: client(broken, 0, ttl)}, {Name: "c2", Run: client(false, 300*time.Millisecond, ttl)}},
				History: gohost.HistoryConfig{Grantor: "lock", FencedStore: "store", Lease: history.Lease{TTL: ttl},
					Contended: []string{"lock"}}}
		},
		Nemesis: &faults.Nemesis{Targets: []string{"c1", "c2"}, Partitionable: []string{"lock", "c1", "c2"},
			Kinds: []faults.Kind{faults.KindPause, faults.KindPartition}, FaultsPerMinute: 20, Phase: 12 * time.Second,
			PauseMax: 3 * time.Second, Boundaries: []time.Duration{ttl}},
	}
}

// lockServer grants the lock for a TTL; its token counts grants.
func lockServer(ttl time.Duration) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error { return serveLock(ctx, n, ttl) }
}

func serveLock(ctx context.Context, n *gohost.Node, ttl time.Duration) error {
	l, err := n.Listen("tcp", ":7000")
	if err != nil {
		return err
	}
	var mu sync.Mutex
	var holder string
	var expires time.Time
	var token uint64
	handle := func(f []string) string {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		switch {
		case len(f) == 2 && f[0] == "ACQUIRE":
			if holder != "" && holder != f[1] && now.Before(expires) {
				return "HELD"
			}
			if holder != f[1] || !now.Before(expires) {
				token++
				holder = f[1]
			}
			expires = now.Add(ttl)
			return fmt.Sprintf("OK %d", token)
		case len(f) == 3 && f[0] == "RENEW":
			if holder != f[1] || !now.Before(expires) || f[2] != strconv.FormatUint(token, 10) {
				return "LOST"
			}
			expires = now.Add(ttl)
			return "OK"
		case len(f) == 2 && f[0] == "RELEASE":
			if holder == f[1] {
				holder = ""
			}
			return "OK"
		}
		return "ERR"
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	go func() { <-ctx.Done(); l.Close() }()
	for {
		c, err := l.Accept()
		if err != nil {
			return nil
		}
		wg.Go(func() {
			defer c.Close()
			go func() { <-ctx.Done(); c.Close() }()
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if _, err := c.Write([]byte(handle(strings.Fields(line)) + "\n")); err != nil {
					return
				}
			}
		})
	}
}

// client takes the lock, writes under its token every 250 ms while it
// believes it holds the lock, renews every TTL/3, releases after 3 s and
// starts over. The broken client treats a failed renewal as a success.
func client(broken bool, start, ttl time.Duration) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		store := n.NewStoreClient("store" + gohost.StorePort)
		defer store.Close()
		if !sleep(ctx, start) {
			return nil
		}
		for ctx.Err() == nil {
			if err := holdOnce(ctx, n, store, broken, ttl); err != nil && !sleep(ctx, 250*time.Millisecond) {
				return nil
			}
		}
		return nil
	}
}

var errNotGranted = errors.New("not granted")

func holdOnce(ctx context.Context, n *gohost.Node, store *gohost.StoreClient, broken bool, ttl time.Duration) error {
	me := fmt.Sprintf("%s/%d", n.Name(), n.Incarnation())
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	c, err := n.Dial(dctx, "tcp", lockAddr)
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	sent := time.Now()
	reply, err := rpc(c, r, sent.Add(ttl/2), "ACQUIRE "+me)
	if err != nil {
		return err
	}
	var token uint64
	if _, err := fmt.Sscanf(reply, "OK %d", &token); err != nil {
		sleep(ctx, 500*time.Millisecond)
		return errNotGranted
	}
	deadline, renewed, started := sent.Add(ttl), sent, time.Now()
	n.Believe(resource, token, deadline)
	for ctx.Err() == nil && time.Since(started) < 3*time.Second {
		if time.Since(renewed) > ttl/3 {
			sent := time.Now()
			reply, err := rpc(c, r, deadline, fmt.Sprintf("RENEW %s %d", me, token))
			switch {
			case err == nil && reply == "OK":
				deadline, renewed = sent.Add(ttl), sent
			case broken: // the bug: assume the renewal went through
				deadline, renewed = time.Now().Add(ttl), time.Now()
			default:
				n.EndBelief(resource, token, history.EndLost)
				return errors.Join(err, errors.New(reply))
			}
			n.Believe(resource, token, deadline)
		}
		if !time.Now().Before(deadline) {
			n.EndBelief(resource, token, history.EndDeadline)
			return nil
		}
		wctx, cancel := context.WithDeadline(ctx, deadline)
		err := store.Write(wctx, resource, token, "data", me)
		cancel()
		if err != nil && !errors.Is(err, gohost.ErrFenced) && !broken {
			n.EndBelief(resource, token, history.EndDeadline)
			return err
		}
		if !sleep(ctx, 250*time.Millisecond) {
			return nil
		}
	}
	n.EndBelief(resource, token, history.EndRelease)
	_, _ = rpc(c, r, time.Now().Add(ttl/2), "RELEASE "+me)
	sleep(ctx, 500*time.Millisecond)
	return nil
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
