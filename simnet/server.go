package simnet

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
)

// ClientHost is the host a [Server]'s Client dials from.
const ClientHost = "client"

// Server is an HTTP server listening on the simulated network, in the
// spirit of net/http/httptest.Server: NewServer starts it, Client talks
// to it over the network, Close stops it and waits for it.
type Server struct {
	// URL is "http://host:port", for requests through Client.
	URL string
	// Listener is the server's listener on the network.
	Listener net.Listener
	// Config is the server; change it before the first request only.
	Config *http.Server

	net     *Network
	served  sync.WaitGroup
	mu      sync.Mutex
	clients []*http.Transport
	closed  bool
}

// NewServer starts an HTTP server for handler on address ("api:80") of
// network n, adding the host if needed. Like httptest.NewServer it panics
// when it cannot listen (a bad address, the port taken).
func NewServer(n *Network, address string, handler http.Handler) *Server {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		panic(fmt.Sprintf("simnet: NewServer: %v", err))
	}
	l, err := n.Host(host).Listen("tcp", address)
	if err != nil {
		panic(fmt.Sprintf("simnet: NewServer: %v", err))
	}
	s := &Server{URL: "http://" + l.Addr().String(), Listener: l, Config: &http.Server{Handler: handler}, net: n}
	s.served.Go(func() {
		if err := s.Config.Serve(l); !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			panic(fmt.Sprintf("simnet: %s: Serve: %v", address, err))
		}
	})
	return s
}

// Client returns an HTTP client whose transport dials from the host
// [ClientHost] over the network. Close closes its idle connections.
func (s *Server) Client() *http.Client {
	t := s.net.Host(ClientHost).Transport()
	s.mu.Lock()
	s.clients = append(s.clients, t)
	s.mu.Unlock()
	return &http.Client{Transport: t}
}

// Close stops the server: it closes the listener and every connection,
// waits for Serve to return and closes the idle connections of the
// clients Client made, so that no goroutine of theirs outlives the
// bubble. Closing twice does nothing.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	clients := s.clients
	s.mu.Unlock()
	if err := s.Config.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		panic(fmt.Sprintf("simnet: %s: Close: %v", s.URL, err)) // the listener is the network's: nothing else fails
	}
	s.served.Wait()
	for _, t := range clients {
		t.CloseIdleConnections()
	}
}
