package k8s

import (
	"context"
	"net"
	"time"
)

// wakeOnClose wraps dial so that closing a connection wakes every
// goroutine blocked on it. It works around a lost wakeup in gohost (seen
// with gohost at 7b2fe23): an endpoint has one single-slot notification
// channel for all its waiters, so Close wakes only one of a Read and a
// Write blocked at once. net/http's transport has both (readLoop and
// writeLoop): when a paused node's request is cancelled, the transport
// closes the connection, the writeLoop's Write stays blocked until the
// pause ends, and RoundTrip waits for it, so client-go's renewal timeout
// is not honoured while the node's I/O is frozen. The wrapper pings the
// endpoint again after Close (SetDeadline notifies it), which hands the
// second waiter its wakeup.
func wakeOnClose(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &wakingConn{Conn: c}, nil
	}
}

type wakingConn struct{ net.Conn }

// Close closes the connection and wakes its other waiter.
func (c *wakingConn) Close() error {
	err := c.Conn.Close()
	_ = c.Conn.SetDeadline(time.Time{})
	return err
}
