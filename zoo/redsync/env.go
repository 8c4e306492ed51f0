package redsync

import (
	"context"
	"math/rand/v2"
	"net"
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// Env is what the server and the holders need from their surroundings:
// *gohost.Node under the goroutine host; the benchmark gives the same
// code a plain testing/synctest stand-in (network, no recording).
type Env interface {
	Name() string
	Incarnation() uint64
	Listen(network, addr string) (net.Listener, error)
	Dial(ctx context.Context, network, addr string) (net.Conn, error)
	Rand() *rand.Rand
	Storage() *gohost.Storage
	Failpoint(name string)
	Believe(resource string, token uint64, until time.Time)
	EndBelief(resource string, token uint64, reason history.EndReason)
	Release(resource string, token uint64)
	Act(resource string, token uint64)
	Call(server string, input history.Payload) gohost.OpRef
	Processed(ref gohost.OpRef, output history.Payload)
	Return(ref gohost.OpRef)
}

// StoreWriter writes to the fenced store (*gohost.StoreClient).
type StoreWriter interface {
	Write(ctx context.Context, resource string, token uint64, key, value string) error
	Close()
}

var (
	_ Env         = (*gohost.Node)(nil)
	_ StoreWriter = (*gohost.StoreClient)(nil)
)
