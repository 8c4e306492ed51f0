package realtime_test

import (
	"context"
	"fmt"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/realtime"
)

// A grantor, a fenced store and a worker on loopback TCP: the worker waits
// for the lease, writes under its token, checkpoints and releases on Close.
func Example() {
	cfg := lease.Config{TTL: 2 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond}
	grantor, err := realtime.StartGrantor(realtime.Options{Addr: "127.0.0.1:0", Config: cfg})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer grantor.Close()
	store, err := realtime.StartResource(realtime.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	worker, err := realtime.StartHolder(realtime.Options{Addr: "127.0.0.1:0", Config: cfg}, grantor.Addr(), store.Addr())
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g, err := worker.AcquireWait(ctx, "nightly-report", lease.AcquireOptions{})
	fmt.Println("token:", g.Token, err)
	fmt.Println("write:", worker.Write(ctx, "nightly-report", "status", []byte("running")))
	fmt.Println("checkpoint:", worker.Checkpoint(ctx, "nightly-report", []byte("row=1000")))
	fmt.Println("close:", worker.Close())
	// Output:
	// token: 1 <nil>
	// write: <nil>
	// checkpoint: <nil>
	// close: <nil>
}
