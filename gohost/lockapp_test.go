package gohost_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// The tiny lock service the tests run: a lock server, a fenced store and
// clients, written as plain goroutine code over net.Conn with a line
// protocol. It knows nothing of the host but the env it is given: a
// *gohost.Node, or plainEnv for the same code under plain synctest.

// env is what the lock service needs from its surroundings.
type env interface {
	Name() string
	Incarnation() uint64
	Listen(network, addr string) (net.Listener, error)
	Dial(ctx context.Context, network, addr string) (net.Conn, error)
	Storage() *gohost.Storage
	Failpoint(name string)
	Believe(resource string, token uint64, until time.Time)
	EndBelief(resource string, token uint64, reason history.EndReason)
	RecordWrite(w gohost.Write)
}

const (
	lockAddr  = "lock:7000"
	storeAddr = "store:7001"
	resource  = "lock"
)

// serve accepts connections on addr and answers each line with handle,
// until ctx ends; then it closes everything and waits for its goroutines.
func serve(ctx context.Context, e env, addr string, handle func(line string) string) error {
	l, err := e.Listen("tcp", addr[strings.IndexByte(addr, ':'):])
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(handle(strings.TrimSpace(line)) + "\n")); err != nil {
						return
					}
				}
			})
		}
	})
	<-ctx.Done()
	l.Close()
	mu.Lock()
	for c := range conns {
		c.Close()
	}
	mu.Unlock()
	wg.Wait()
	return nil
}

// lockServer grants one lock with a TTL on its own clock; its fencing
// token counts grants and is kept in durable storage.
func lockServer(ctx context.Context, e env) error {
	var mu sync.Mutex
	var holder string
	var expires time.Time
	token := loadUint(e.Storage(), "token")
	return serve(ctx, e, lockAddr, func(line string) string {
		mu.Lock()
		defer mu.Unlock()
		f := strings.Fields(line)
		now := time.Now()
		switch {
		case len(f) == 4 && f[0] == "ACQUIRE": // ACQUIRE client/inc ttl_ms -
			ttl, _ := strconv.Atoi(f[2])
			if holder != "" && holder != f[1] && now.Before(expires) {
				return "HELD"
			}
			if holder != f[1] || !now.Before(expires) {
				token++
				saveUint(e.Storage(), "token", token)
				holder = f[1]
			}
			expires = now.Add(time.Duration(ttl) * time.Millisecond)
			return fmt.Sprintf("OK %d", token)
		case len(f) == 4 && f[0] == "RENEW": // RENEW client/inc ttl_ms token
			ttl, _ := strconv.Atoi(f[2])
			if holder != f[1] || !now.Before(expires) || f[3] != strconv.FormatUint(token, 10) {
				return "LOST"
			}
			expires = now.Add(time.Duration(ttl) * time.Millisecond)
			return fmt.Sprintf("OK %d", token)
		case len(f) == 4 && f[0] == "RELEASE":
			if holder == f[1] && f[3] == strconv.FormatUint(token, 10) {
				holder = ""
			}
			return "OK"
		}
		return "ERR " + line
	})
}

// storeServer is the fenced store: it accepts a write whose token is at
// least the highest it accepted.
func storeServer(ctx context.Context, e env) error {
	var mu sync.Mutex
	return serve(ctx, e, storeAddr, func(line string) string {
		mu.Lock()
		defer mu.Unlock()
		f := strings.Fields(line) // WRITE client inc token value
		if len(f) != 5 || f[0] != "WRITE" {
			return "ERR " + line
		}
		inc, _ := strconv.ParseUint(f[2], 10, 64)
		tok, _ := strconv.ParseUint(f[3], 10, 64)
		highest := loadUint(e.Storage(), "highest")
		ok := tok >= highest
		if ok {
			saveUint(e.Storage(), "highest", tok)
		}
		e.RecordWrite(gohost.Write{Writer: f[1], WriterIncarnation: inc, Resource: resource, Key: "data",
			Value: f[4], Token: tok, Accepted: ok, Highest: highest})
		if !ok {
			return "FENCED"
		}
		return "OK"
	})
}

func loadUint(s *gohost.Storage, key string) uint64 {
	b, ok := s.Get(key)
	if !ok {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func saveUint(s *gohost.Storage, key string, v uint64) {
	s.Put(key, binary.BigEndian.AppendUint64(nil, v))
}

// clientConfig shapes a client's life.
type clientConfig struct {
	start, ttl, hold, idle, every time.Duration
	// broken ignores its deadline: when a renewal fails it assumes it
	// still holds the lock and goes on believing and writing.
	broken bool
}

var defaultClient = clientConfig{ttl: 2 * time.Second, hold: 3 * time.Second, idle: 500 * time.Millisecond,
	every: 250 * time.Millisecond}

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

// sleep waits d or until ctx ends.
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

// lockClient acquires the lock, writes to the fenced store under its
// token while it believes it holds the lock, renews it, releases it after
// a while, and starts over.
func lockClient(cfg clientConfig) func(ctx context.Context, e env) error {
	return func(ctx context.Context, e env) error {
		if !sleep(ctx, cfg.start) {
			return nil
		}
		me := fmt.Sprintf("%s/%d", e.Name(), e.Incarnation())
		for seq := 0; ctx.Err() == nil; seq++ {
			err := holdOnce(ctx, e, cfg, me, &seq)
			if err != nil && ctx.Err() == nil && !errors.Is(err, errNotGranted) {
				// connection trouble: back off and try again
				if !sleep(ctx, cfg.every) {
					return nil
				}
			}
		}
		return nil
	}
}

var errNotGranted = errors.New("not granted")

// holdOnce runs one acquire-hold-release round over fresh connections.
func holdOnce(ctx context.Context, e env, cfg clientConfig, me string, seq *int) error {
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	lc, err := e.Dial(dctx, "tcp", lockAddr)
	if err != nil {
		return err
	}
	defer lc.Close()
	sc, err := e.Dial(dctx, "tcp", storeAddr)
	if err != nil {
		return err
	}
	defer sc.Close()
	lr, sr := bufio.NewReader(lc), bufio.NewReader(sc)
	ttlMS := strconv.Itoa(int(cfg.ttl / time.Millisecond))
	sent := time.Now()
	reply, err := rpc(lc, lr, sent.Add(cfg.ttl/2), "ACQUIRE "+me+" "+ttlMS+" -")
	if err != nil {
		return err
	}
	var token uint64
	if _, err := fmt.Sscanf(reply, "OK %d", &token); err != nil {
		sleep(ctx, cfg.idle)
		return errNotGranted
	}
	deadline := sent.Add(cfg.ttl)
	e.Believe(resource, token, deadline)
	started, renewed := time.Now(), sent
	for ctx.Err() == nil && time.Since(started) < cfg.hold {
		if time.Now().After(renewed.Add(cfg.ttl / 3)) {
			sent := time.Now()
			reply, err := rpc(lc, lr, deadline, fmt.Sprintf("RENEW %s %s %d", me, ttlMS, token))
			switch {
			case err == nil && reply == fmt.Sprintf("OK %d", token):
				deadline, renewed = sent.Add(cfg.ttl), sent
				e.Believe(resource, token, deadline)
			case cfg.broken:
				// The bug: assume the renewal went through.
				deadline, renewed = time.Now().Add(cfg.ttl), time.Now()
				e.Believe(resource, token, deadline)
				if err != nil { // the connection is gone; keep writing anyway
					lc.Close()
					lc, _ = e.Dial(ctx, "tcp", lockAddr)
					if lc == nil {
						return nil
					}
					lr = bufio.NewReader(lc)
				}
			default:
				e.EndBelief(resource, token, history.EndLost)
				return err
			}
		}
		if !cfg.broken && !time.Now().Before(deadline) {
			e.EndBelief(resource, token, history.EndDeadline)
			return nil
		}
		e.Failpoint("before-write") // between the check and the write
		*seq++
		if _, err := rpc(sc, sr, time.Now().Add(cfg.ttl/2), fmt.Sprintf("WRITE %s %d %d %s-%d", e.Name(), e.Incarnation(), token, e.Name(), *seq)); err != nil && !cfg.broken {
			e.EndBelief(resource, token, history.EndDeadline)
			return err
		}
		if !sleep(ctx, cfg.every) {
			return nil
		}
	}
	e.EndBelief(resource, token, history.EndRelease)
	rpc(lc, lr, time.Now().Add(cfg.ttl/2), fmt.Sprintf("RELEASE %s %s %d", me, ttlMS, token))
	sleep(ctx, cfg.idle)
	return nil
}
