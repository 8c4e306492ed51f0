package realtime_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/realtime"
)

// Recording a real run: every node gets the same Recorder, and once the
// run is over its history goes to a file that `simrun check FILE` judges
// with the checkers of the simulator.
func ExampleRecorder() {
	rec := realtime.NewRecorder()
	cfg := lease.Config{TTL: 2 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond}
	grantor, err := realtime.StartGrantor(realtime.Options{Addr: "127.0.0.1:0", Config: cfg, Recorder: rec})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer grantor.Close()
	store, err := realtime.StartResource(realtime.Options{Addr: "127.0.0.1:0", Recorder: rec})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	worker, err := realtime.StartHolder(realtime.Options{Addr: "127.0.0.1:0", Config: cfg, Recorder: rec},
		grantor.Addr(), store.Addr())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := worker.AcquireWait(ctx, "nightly-report", lease.AcquireOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("write:", worker.Write(ctx, "nightly-report", "status", []byte("running")))
	fmt.Println("close:", worker.Close())

	head, _, _ := rec.Records()
	fmt.Println(head.Producer, head.Determinism, head.Spec)
	dir, _ := os.MkdirTemp("", "recorded-")
	defer os.RemoveAll(dir)
	f, _ := os.Create(filepath.Join(dir, "history.jsonl"))
	fmt.Println("history:", rec.WriteHistory(f), f.Close())
	// Then: simrun check history.jsonl
	// Output:
	// write: <nil>
	// close: <nil>
	// lease/realtime statistical lease-store
	// history: <nil> <nil>
}
