package gohost

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// StorePort is the port FencedStore listens on.
const StorePort = ":7001"

// StoreOptions configures FencedStore.
type StoreOptions struct {
	// Unfenced makes the store accept every write whatever its token, as
	// most stores a lease holder writes to do. The writes still carry the
	// writer's token and are recorded with it, so P2 shows what fencing
	// would have refused.
	Unfenced bool
}

// StoreRequest is a write to a fenced store, as its wire format carries
// it: one JSON object a line. A client outside the bubble (a holder
// process of a real-time host) speaks it to ServeFencedStore.
type StoreRequest struct {
	Resource string `json:"resource"`
	Token    uint64 `json:"token"`
	Key      string `json:"key"`
	Value    string `json:"value"`
	Writer   string `json:"writer"`
	Life     uint64 `json:"life"`
}

// StoreReply is a fenced store's answer to a StoreRequest, one JSON object
// a line: OK when accepted; Highest is the highest token the store had
// accepted for the resource.
type StoreReply struct {
	OK      bool   `json:"ok"`
	Highest uint64 `json:"highest"`
}

// ErrFenced is what StoreClient.Write returns for a write the store
// refused: its token was below the highest the store had accepted.
var ErrFenced = errors.New("gohost: write fenced: a higher token was accepted")

// FencedStore returns the node function of the fenced store every
// goroutine-host story can share: it listens on StorePort and accepts a
// write whose token is at least the highest it has accepted for the
// resource (kept in the node's durable Storage, so a restart keeps it),
// and records every write for P2 (Node.RecordWrite). Name its node in
// HistoryConfig.FencedStore.
func FencedStore(opts StoreOptions) func(ctx context.Context, n *Node) error {
	return func(ctx context.Context, n *Node) error {
		l, err := n.Listen("tcp", StorePort)
		if err != nil {
			return fmt.Errorf("fenced store: %w", err)
		}
		var mu sync.Mutex // one write at a time, as one register
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
				defer c.Close() // the host resets it when the node's life ends
				serveStore(c, func(req StoreRequest) StoreReply {
					mu.Lock()
					defer mu.Unlock()
					return storeWrite(nodeTokens{n}, opts, req, n.RecordWrite)
				})
			})
		}
		wg.Wait()
		return nil
	}
}

// serveStore answers one connection's requests until it fails.
func serveStore(c net.Conn, write func(StoreRequest) StoreReply) {
	dec, enc := json.NewDecoder(bufio.NewReader(c)), json.NewEncoder(c)
	for {
		var req StoreRequest
		if dec.Decode(&req) != nil {
			return
		}
		if enc.Encode(write(req)) != nil {
			return
		}
	}
}

// tokens is where a fenced store keeps the highest token it accepted per
// resource.
type tokens interface {
	highest(resource string) uint64
	setHighest(resource string, token uint64)
}

// nodeTokens keeps them in a goroutine-host node's durable Storage, so a
// restart keeps them.
type nodeTokens struct{ n *Node }

func (t nodeTokens) highest(resource string) uint64 {
	if b, ok := t.n.Storage().Get("highest/" + resource); ok {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (t nodeTokens) setHighest(resource string, token uint64) {
	t.n.Storage().Put("highest/"+resource, binary.BigEndian.AppendUint64(nil, token))
}

// memTokens keeps them in memory (ServeFencedStore).
type memTokens map[string]uint64 // looked up, never iterated

func (t memTokens) highest(resource string) uint64           { return t[resource] }
func (t memTokens) setHighest(resource string, token uint64) { t[resource] = token }

// storeWrite decides one write and records it.
func storeWrite(t tokens, opts StoreOptions, req StoreRequest, record func(Write)) StoreReply {
	highest := t.highest(req.Resource)
	ok := opts.Unfenced || req.Token >= highest
	if ok && req.Token > highest {
		t.setHighest(req.Resource, req.Token)
	}
	w := Write{Writer: req.Writer, WriterIncarnation: req.Life, Resource: req.Resource, Key: req.Key,
		Value: req.Value, Token: req.Token, Accepted: ok}
	if !ok {
		w.Highest = highest
	}
	record(w)
	return StoreReply{OK: ok, Highest: highest}
}

// ServeFencedStore serves the fenced store of FencedStore on a real
// listener, for a host whose holders are real processes: the same wire
// format (StoreRequest, StoreReply), the same decision (a write is
// accepted when its token is at least the highest accepted for its
// resource, or always with opts.Unfenced), kept in memory. record is
// called with every write, one at a time, in the order decided. It
// returns when ctx ends, after closing l and every connection.
func ServeFencedStore(ctx context.Context, l net.Listener, opts StoreOptions, record func(Write)) {
	var mu sync.Mutex // one write at a time, as one register
	var wg sync.WaitGroup
	conns := map[net.Conn]bool{} // looked up and closed, never iterated into output
	stop := context.AfterFunc(ctx, func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for c := range conns {
			c.Close()
		}
	})
	defer stop()
	t := memTokens{}
	for {
		c, err := l.Accept()
		if err != nil {
			break
		}
		mu.Lock()
		if ctx.Err() != nil {
			mu.Unlock()
			c.Close()
			break
		}
		conns[c] = true
		mu.Unlock()
		wg.Go(func() {
			defer func() { mu.Lock(); delete(conns, c); mu.Unlock(); c.Close() }()
			serveStore(c, func(req StoreRequest) StoreReply {
				mu.Lock()
				defer mu.Unlock()
				return storeWrite(t, opts, req, record)
			})
		})
	}
	wg.Wait()
}

// StoreClient writes to a FencedStore from a holder's node over one
// connection, dialled on first use and again after a failure. Writes are
// sent one at a time; Close may be called at any time and ends the client,
// a Write that is waiting (dialling, sending or reading) included.
type StoreClient struct {
	n      *Node
	addr   string
	life   context.Context // cancelled by Close
	cancel context.CancelFunc
	mu     sync.Mutex // one Write at a time
	cmu    sync.Mutex // guards conn and dec, held only briefly (Close must not wait for a Write)
	conn   net.Conn
	dec    *json.Decoder
}

// NewStoreClient returns a client of the store at addr ("store:7001").
func (n *Node) NewStoreClient(addr string) *StoreClient {
	life, cancel := context.WithCancel(context.Background())
	return &StoreClient{n: n, addr: addr, life: life, cancel: cancel}
}

// Write asks the store to write value at key under resource's token and
// waits for the answer until ctx ends (its deadline or its cancellation):
// nil when accepted, ErrFenced when refused, or the connection's error
// (the write may or may not have happened). Token is the writer's fencing
// token; an unfenced store ignores it.
func (c *StoreClient) Write(ctx context.Context, resource string, token uint64, key, value string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(c.life, cancel)()
	conn, dec, err := c.connect(ctx)
	if err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	req := StoreRequest{Resource: resource, Token: token, Key: key, Value: value, Writer: c.n.Name(), Life: c.n.Incarnation()}
	var rep StoreReply
	c.n.sendsWrite(req)
	err = json.NewEncoder(conn).Encode(req)
	if err == nil {
		err = dec.Decode(&rep)
	}
	if err != nil {
		c.drop(conn)
		return fmt.Errorf("fenced store %s: %w", c.addr, err)
	}
	if !rep.OK {
		return fmt.Errorf("%w (highest %d, this write's token %d)", ErrFenced, rep.Highest, token)
	}
	return nil
}

// connect returns the client's connection, dialling it if there is none.
func (c *StoreClient) connect(ctx context.Context) (net.Conn, *json.Decoder, error) {
	c.cmu.Lock()
	conn, dec := c.conn, c.dec
	c.cmu.Unlock()
	if conn != nil {
		return conn, dec, nil
	}
	if err := c.life.Err(); err != nil {
		return nil, nil, fmt.Errorf("fenced store %s: client closed: %w", c.addr, net.ErrClosed)
	}
	conn, err := c.n.Dial(ctx, "tcp", c.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("fenced store %s: %w", c.addr, err)
	}
	dec = json.NewDecoder(bufio.NewReader(conn))
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.life.Err() != nil { // closed while dialling
		conn.Close()
		return nil, nil, fmt.Errorf("fenced store %s: client closed: %w", c.addr, net.ErrClosed)
	}
	c.conn, c.dec = conn, dec
	return conn, dec, nil
}

// drop closes conn and forgets it, if it is still the client's.
func (c *StoreClient) drop(conn net.Conn) {
	conn.Close()
	c.cmu.Lock()
	if c.conn == conn {
		c.conn, c.dec = nil, nil
	}
	c.cmu.Unlock()
}

// Close ends the client: its connection is closed, a waiting Write fails
// and so does every later one.
func (c *StoreClient) Close() {
	c.cancel()
	c.cmu.Lock()
	conn := c.conn
	c.conn, c.dec = nil, nil
	c.cmu.Unlock()
	if conn != nil {
		conn.Close()
	}
}
