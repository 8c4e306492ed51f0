package consul

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blockingDialer records the dials it is asked for and holds each until
// released.
type blockingDialer struct {
	mu      sync.Mutex
	order   []string
	release map[string]chan struct{}
}

func (d *blockingDialer) dial(ctx context.Context, _, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.order = append(d.order, addr)
	ch := d.release[addr]
	d.mu.Unlock()
	select {
	case <-ch:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (d *blockingDialer) dialed() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.order...)
}

// Dials reach the dialer one at a time, first come first served, and a
// waiting dial whose context ends leaves the queue without dialling.
func TestDialQueueOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &blockingDialer{release: map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{}),
			"c": make(chan struct{}), "d": make(chan struct{})}}
		q := &dialQueue{dial: d.dial}
		errs := make(chan error, 4)
		cctx, cancel := context.WithCancel(context.Background())
		for _, addr := range []string{"a", "b", "c", "d"} {
			ctx := context.Background()
			if addr == "c" {
				ctx = cctx
			}
			go func() {
				_, err := q.DialContext(ctx, "tcp", addr)
				errs <- err
			}()
			synctest.Wait() // each caller queues before the next one asks
		}
		require.Equal(t, []string{"a"}, d.dialed(), "one dial at a time")
		cancel()
		synctest.Wait()
		err := <-errs
		assert.True(t, errors.Is(err, context.Canceled), "c gave up while waiting: %v", err)
		for _, addr := range []string{"a", "b", "d"} {
			close(d.release[addr])
			synctest.Wait()
			require.NoError(t, <-errs)
		}
		assert.Equal(t, []string{"a", "b", "d"}, d.dialed(), "in the order asked, without the one that gave up")
		assert.False(t, q.busy, "the queue is free again")
	})
}
