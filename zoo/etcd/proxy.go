package etcd

import (
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// The fault proxy: every connection a client or a member opens to a member
// goes through a Proxy that the harness's Net controls. A Proxy knows which
// member it fronts; it learns who connected from the connecting socket's
// owner (the process holding it, found in /proc), so one proxy a member port
// serves every peer and client, and a fault names processes, as a schedule
// does.
//
// What a fault does to the bytes of a connection, per direction from → to:
//   - cut (partition, one-way partition, isolate, bridge): the bytes wait in
//     the proxy until the cut is lifted, as TCP retransmits across a real
//     partition; the sender blocks once buffers are full. Connecting still
//     succeeds (loopback handshakes are not cut).
//   - drop (a link with loss 1): the bytes are read and discarded; the
//     request still reaches the server, the response never reaches the
//     client. A TCP stream cannot carry a gap, so a connection that lost bytes
//     is closed when the drop ends.
//   - latency (a link's latency min..max): each chunk is delayed by a
//     uniform draw in [min, max], in order.

// linkKey is a direction between two processes.
type linkKey struct{ from, to string }

// linkState is a direction's configuration.
type linkState struct {
	latMin, latMax time.Duration
	drop           bool
}

// Net is the state of the fault proxy: the cuts and the links, and the
// connections it carries.
type Net struct {
	mu       sync.Mutex
	cond     *sync.Cond
	cut      map[linkKey]bool
	isolated map[string]bool
	links    map[linkKey]linkState
	conns    map[*pconn]bool
	rng      *rand.Rand
	owner    func(port int) string // who holds the local port of a connecting socket
	proxies  []*Proxy
	closed   bool
}

// newNet returns an empty Net whose latency draws come from seed.
func newNet(seed uint64, owner func(port int) string) *Net {
	n := &Net{cut: map[linkKey]bool{}, isolated: map[string]bool{}, links: map[linkKey]linkState{},
		conns: map[*pconn]bool{}, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), owner: owner}
	n.cond = sync.NewCond(&n.mu)
	return n
}

// blocked reports whether from → to is cut. Under mu.
func (n *Net) blocked(from, to string) bool {
	return n.cut[linkKey{from, to}] || n.isolated[from] || n.isolated[to]
}

// link returns the configuration of from → to: an exact entry, else one
// with "*" on either side. Under mu.
func (n *Net) link(from, to string) linkState {
	for _, k := range []linkKey{{from, to}, {from, "*"}, {"*", to}, {"*", "*"}} {
		if l, ok := n.links[k]; ok {
			return l
		}
	}
	return linkState{}
}

// Cut cuts from → to (Uncut lifts it).
func (n *Net) Cut(from, to string) { n.set(func() { n.cut[linkKey{from, to}] = true }) }

// Isolate cuts name off from every process, both ways.
func (n *Net) Isolate(name string) { n.set(func() { n.isolated[name] = true }) }

// Heal lifts every cut; links keep their configuration.
func (n *Net) Heal() {
	n.set(func() { clear(n.cut); clear(n.isolated) })
}

// SetLink configures from → to ("*" for any process).
func (n *Net) SetLink(from, to string, l linkState) {
	n.set(func() { n.links[linkKey{from, to}] = l })
}

// ResetLinks returns every link to no latency and no drop.
func (n *Net) ResetLinks() { n.set(func() { clear(n.links) }) }

// set applies a change, wakes the stalled pumps, and closes the
// connections that lost bytes to a drop that has ended.
func (n *Net) set(change func()) {
	n.mu.Lock()
	change()
	var reap []*pconn
	for c := range n.conns {
		if c.damaged && !n.link(c.src, c.dst).drop && !n.link(c.dst, c.src).drop {
			reap = append(reap, c)
		}
	}
	n.cond.Broadcast()
	n.mu.Unlock()
	for _, c := range reap {
		c.close()
	}
}

// Proxy fronts one member port.
type Proxy struct {
	net    *Net
	dst    string // the member it fronts
	target string // the member's real address
	l      net.Listener
	wg     sync.WaitGroup
}

// Addr returns the address clients and peers dial.
func (p *Proxy) Addr() string { return p.l.Addr().String() }

// newProxy listens on a loopback port and forwards to target.
func (n *Net) newProxy(dst, target string) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("etcd: proxy for %s: %w", dst, err)
	}
	p := &Proxy{net: n, dst: dst, target: target, l: l}
	n.mu.Lock()
	n.proxies = append(n.proxies, p)
	n.mu.Unlock()
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		src := "unknown"
		if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
			src = p.net.owner(a.Port)
		}
		up, err := net.DialTimeout("tcp", p.target, 2*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		pc := &pconn{net: p.net, src: src, dst: p.dst, a: c, b: up}
		p.net.mu.Lock()
		if p.net.closed {
			p.net.mu.Unlock()
			pc.close()
			return
		}
		p.net.conns[pc] = true
		p.net.mu.Unlock()
		p.wg.Add(2)
		go func() { defer p.wg.Done(); pc.pump(pc.src, pc.dst, pc.a, pc.b) }()
		go func() { defer p.wg.Done(); pc.pump(pc.dst, pc.src, pc.b, pc.a) }()
	}
}

// Close closes every proxy and connection and waits for their goroutines.
func (n *Net) Close() {
	n.mu.Lock()
	n.closed = true
	ps := n.proxies
	var cs []*pconn
	for c := range n.conns {
		cs = append(cs, c)
	}
	n.cond.Broadcast()
	n.mu.Unlock()
	for _, p := range ps {
		p.l.Close()
	}
	for _, c := range cs {
		c.close()
	}
	for _, p := range ps {
		p.wg.Wait()
	}
}

// pconn is one proxied connection: a is the connecting side (src), b the
// member (dst).
type pconn struct {
	net      *Net
	src, dst string
	a, b     net.Conn
	damaged  bool // under net.mu: bytes were dropped
	once     sync.Once
}

func (c *pconn) close() {
	c.once.Do(func() {
		c.a.Close()
		c.b.Close()
		c.net.mu.Lock()
		delete(c.net.conns, c)
		c.net.cond.Broadcast()
		c.net.mu.Unlock()
	})
}

type chunk struct {
	b   []byte
	due time.Time
}

// pump carries bytes from → to, read from r and written to w, under the
// faults of that direction.
func (c *pconn) pump(from, to string, r, w net.Conn) {
	defer c.close()
	q := make(chan chunk, 256)
	done := make(chan struct{})
	go func() { // the writer: waits out latency and cuts, in order
		defer close(done)
		for ch := range q {
			if d := time.Until(ch.due); d > 0 {
				time.Sleep(d)
			}
			n := c.net
			n.mu.Lock()
			for n.blocked(from, to) && !n.closed && n.conns[c] {
				n.cond.Wait()
			}
			ok := !n.closed && n.conns[c]
			n.mu.Unlock()
			if !ok {
				return
			}
			if _, err := w.Write(ch.b); err != nil {
				c.close()
				return
			}
		}
	}()
	defer func() { close(q); <-done }()
	buf := make([]byte, 32<<10)
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n := c.net
			n.mu.Lock()
			l := n.link(from, to)
			if l.drop {
				c.damaged = true
			}
			lat := l.latMin
			if l.latMax > l.latMin {
				lat += time.Duration(n.rng.Int64N(int64(l.latMax - l.latMin)))
			}
			n.mu.Unlock()
			if !l.drop {
				select {
				case q <- chunk{b: append([]byte(nil), buf[:k]...), due: time.Now().Add(lat)}:
				case <-done:
					return
				}
			}
		}
		if err != nil { // closed or reset: the writer drains what it has, then both sides close
			return
		}
	}
}
