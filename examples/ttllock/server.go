package ttllock

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/leasesim/leasesim/gohost"
)

// Addresses and names of the lock service.
const (
	// ServerNode is the lock server's node; Addr its address.
	ServerNode = "lock"
	Addr       = ServerNode + ":7000"
	// StoreNode is the fenced store's node.
	StoreNode = "store"
	// Resource is the one lock the server grants.
	Resource = "lock"
)

// grants is the server's state: who holds the lock, until when, and the
// last token it issued. Under session tokens, the token of a grant is
// instead the holder's session id: the clients in the order the server
// first heard from them, numbered from 1, as an etcd lease id or a
// ZooKeeper session id grows with a session's age, not with acquisition.
type grants struct {
	mu            sync.Mutex
	ttl           time.Duration
	holder        string
	expires       time.Time
	token         uint64
	sessionTokens bool
	sessions      []string // clients in the order of their first request
}

// handle answers one request line: ACQUIRE me, RENEW me token, RELEASE me.
func (g *grants) handle(f []string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	switch {
	case len(f) == 2 && f[0] == "ACQUIRE":
		if g.holder != "" && g.holder != f[1] && now.Before(g.expires) {
			return "HELD"
		}
		if g.holder != f[1] || !now.Before(g.expires) {
			g.token = g.nextToken(f[1])
			g.holder = f[1]
		}
		g.expires = now.Add(g.ttl)
		return fmt.Sprintf("OK %d", g.token)
	case len(f) == 3 && f[0] == "RENEW":
		if g.holder != f[1] || !now.Before(g.expires) || f[2] != strconv.FormatUint(g.token, 10) {
			return "LOST"
		}
		g.expires = now.Add(g.ttl)
		return "OK"
	case len(f) == 2 && f[0] == "RELEASE":
		if g.holder == f[1] {
			g.holder = ""
		}
		return "OK"
	}
	return "ERR"
}

// nextToken is the token of a new grant to client: one more than the last
// grant's, or client's session id under session tokens.
func (g *grants) nextToken(client string) uint64 {
	if !g.sessionTokens {
		return g.token + 1
	}
	for i, s := range g.sessions {
		if s == client {
			return uint64(i + 1)
		}
	}
	g.sessions = append(g.sessions, client)
	return uint64(len(g.sessions))
}

// Server returns the lock server's node function: it grants Resource for
// ttl, one line a request, until ctx ends, and numbers grants in the order
// it makes them (the fencing token).
func Server(ttl time.Duration) func(ctx context.Context, n *gohost.Node) error {
	return serve(ttl, false)
}

// SessionTokenServer is Server fencing with the holder's session id, which
// grows with the age of a client's session rather than with acquisition:
// when the lock passes back to an older session, its token is lower than
// the one before, and a fenced store that takes tokens in non-decreasing
// order lets a paused younger holder's write land after the older one's.
func SessionTokenServer(ttl time.Duration) func(ctx context.Context, n *gohost.Node) error {
	return serve(ttl, true)
}

// serve is the server's node function; each start of the node (each run,
// and each restart) begins with no grants.
func serve(ttl time.Duration, sessionTokens bool) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		l, err := n.Listen("tcp", Addr[len(ServerNode):])
		if err != nil {
			return err
		}
		g := &grants{ttl: ttl, sessionTokens: sessionTokens}
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
					if _, err := c.Write([]byte(g.handle(strings.Fields(line)) + "\n")); err != nil {
						return
					}
				}
			})
		}
	}
}
