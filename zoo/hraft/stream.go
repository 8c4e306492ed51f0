package hraft

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/leasesim/leasesim/gohost"
)

// RaftPort is the port each member's raft transport listens on.
const RaftPort = ":7000"

// streamLayer is raft's StreamLayer (net_transport.go) over the goroutine
// host's simulated TCP network: the listener is the node's Listen, Dial the
// node's Dial with the transport's timeout. It keeps the connections it
// accepted and closes them with the listener: NetworkTransport's
// handleConn goroutines read until their connection fails, and a life
// that ends must leave none behind.
type streamLayer struct {
	net.Listener
	n    *gohost.Node
	addr raftAddr

	mu       sync.Mutex
	accepted []net.Conn
	closed   bool
}

// raftAddr is the member's advertised address ("raft2:7000").
type raftAddr string

func (a raftAddr) Network() string { return "tcp" }
func (a raftAddr) String() string  { return string(a) }

// newStreamLayer listens on the node's RaftPort.
func newStreamLayer(n *gohost.Node) (*streamLayer, error) {
	l, err := n.Listen("tcp", RaftPort)
	if err != nil {
		return nil, err
	}
	return &streamLayer{Listener: l, n: n, addr: raftAddr(n.Name() + RaftPort)}, nil
}

// Accept waits for the next connection and keeps it to close at Close.
func (s *streamLayer) Accept() (net.Conn, error) {
	c, err := s.Listener.Accept()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = c.Close()
		return nil, net.ErrClosed
	}
	s.accepted = append(s.accepted, c)
	return c, nil
}

// Close closes the listener and every connection it accepted.
func (s *streamLayer) Close() error {
	s.mu.Lock()
	s.closed = true
	cs := s.accepted
	s.accepted = nil
	s.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
	}
	return s.Listener.Close()
}

// Addr is the address the other members dial.
func (s *streamLayer) Addr() net.Addr { return s.addr }

// Dial connects to a member's raft address within timeout.
func (s *streamLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(s.n.Context(), timeout)
	defer cancel()
	return s.n.Dial(ctx, "tcp", string(address))
}
