package lease_test

import (
	"fmt"
	"os"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
)

// A grantor, a fenced resource and a holder, run in a deterministic world:
// the holder acquires a lease, writes under its token, keeps the lease for a
// minute by renewing it, checkpoints, and releases it on shutdown.
func Example() {
	w := leasetest.NewWorld()
	cfg := lease.Config{TTL: 10 * time.Second, Rho: 0.01, Margin: 100 * time.Millisecond}

	g := must(lease.NewGrantor(w.Env("grantor", 1), cfg))
	w.Register("grantor", g)
	store := must(lease.NewResource(w.Env("store", 2)))
	w.Register("store", store)
	h := must(lease.NewHolder(w.Env("worker", 3), cfg, "grantor", "store"))
	w.Register("worker", h)

	h.Acquire("job", lease.AcquireOptions{
		OnGrant: func(gr lease.Grant) { fmt.Println("granted token", gr.Token, "valid until", gr.Deadline) },
		OnLost:  func(res string, token uint64, err error) { fmt.Println("lost", res, token, err) },
	})
	w.Settle()
	h.Write("job", "progress", []byte("1"), func(err error) { fmt.Println("write:", err) })
	w.Settle()

	w.Advance(time.Minute)
	gr, ok := h.Valid("job")
	fmt.Println("still valid after a minute:", ok, "token", gr.Token)
	h.(lease.Checkpointer).Checkpoint("job", []byte("unit=42"), func(err error) { fmt.Println("checkpoint:", err) })
	w.Settle()

	// Close, Lookup and Highest are what leasesim's own nodes offer beyond
	// the interfaces the harness calls.
	h.(lease.Closer).Close()
	w.Settle()
	_, held := g.(lease.LeaseLookup).Lookup("job")
	fmt.Println("held at grantor after close:", held, "highest token at store:", store.(lease.FenceLookup).Highest("job"))
	// Output:
	// granted token 1 valid until 9.8s
	// write: <nil>
	// still valid after a minute: true token 1
	// checkpoint: <nil>
	// held at grantor after close: false highest token at store: 1
}

// A stale holder is fenced: the first holder pauses (a long GC, a VM
// migration) past its lease, a second holder takes over and writes, and the
// first holder's delayed write is rejected.
func Example_fencing() {
	w := leasetest.NewWorld()
	cfg := lease.Config{TTL: 10 * time.Second, Rho: 0.01}
	w.Register("grantor", must(lease.NewGrantor(w.Env("grantor", 1), cfg)))
	w.Register("store", must(lease.NewResource(w.Env("store", 2))))

	var resume func()
	env := w.Env("slow", 3)
	env.Failpoint = func(name string, then func()) { // pause at the failpoint
		w.Pause("slow")
		resume = then
	}
	slow := must(lease.NewHolder(env, cfg, "grantor", "store"))
	w.Register("slow", slow)
	fast := must(lease.NewHolder(w.Env("fast", 4), cfg, "grantor", "store"))
	w.Register("fast", fast)

	slow.Acquire("job", lease.AcquireOptions{})
	w.Settle()
	slow.Write("job", "k", []byte("from slow"), func(err error) { fmt.Println("slow write:", err) })

	fast.Acquire("job", lease.AcquireOptions{})
	w.Advance(time.Minute) // the slow holder's lease expires; the fast one acquires
	fast.Write("job", "k", []byte("from fast"), func(err error) { fmt.Println("fast write:", err) })
	w.Settle()

	w.Resume("slow") // the pause ends; the write it was about to send goes out
	resume()
	w.Settle()
	_, ok := slow.Valid("job")
	fmt.Println("slow still believes:", ok)
	// Output:
	// fast write: <nil>
	// slow write: write on "job", token 1: lease: fenced: stale token
	// slow still believes: false
}

// A lease covers several keys of the fenced store, and holders read them
// back under their tokens: each value comes with the token that wrote it.
// The successor reads the key it has not written yet and sees its
// predecessor's value; the predecessor, whose lease lapsed while it was
// paused, is refused its read before anything is sent.
func ExampleReader() {
	w := leasetest.NewWorld()
	cfg := lease.Config{TTL: 10 * time.Second, Rho: 0.01}
	w.Register("grantor", must(lease.NewGrantor(w.Env("grantor", 1), cfg)))
	w.Register("store", must(lease.NewResource(w.Env("store", 2))))
	old := must(lease.NewHolder(w.Env("old", 3), cfg, "grantor", "store"))
	w.Register("old", old)
	next := must(lease.NewHolder(w.Env("next", 4), cfg, "grantor", "store"))
	w.Register("next", next)
	read := func(h lease.Holder, key string) {
		h.(lease.Reader).Read("ledger", key, func(v []byte, token uint64, err error) {
			fmt.Printf("read %s: %q under token %d, err %v\n", key, v, token, err)
		})
		w.Settle()
	}

	old.Acquire("ledger", lease.AcquireOptions{})
	w.Settle()
	old.Write("ledger", "k1", []byte("a"), nil)
	old.Write("ledger", "k2", []byte("b"), nil)
	w.Settle()
	read(old, "k2")

	w.Pause("old") // it cannot renew; next takes the lease over and writes k1
	next.Acquire("ledger", lease.AcquireOptions{})
	w.Advance(time.Minute)
	next.Write("ledger", "k1", []byte("c"), nil)
	w.Settle()
	w.Resume("old")
	read(next, "k2")
	read(old, "k1")
	// Output:
	// read k2: "b" under token 1, err <nil>
	// read k2: "b" under token 1, err <nil>
	// read k1: "" under token 0, err read "k1" on "ledger": lease: lease expired
}

// Validate explains why a configuration is unsafe.
func ExampleConfig_Validate() {
	cfg := lease.Config{TTL: 10 * time.Second, RenewInterval: 9900 * time.Millisecond, Rho: 0.01}.WithDefaults()
	fmt.Println(cfg.Validate())
	// Output:
	// lease: invalid config: renew interval 9.9s must be below TTL×(1−rho)−margin = 10s×(1−0.01)−0s = 9.9s, or the holder stops believing it holds the lease before it renews
}

// The JSON-lines observer writes an event log that can be replayed later.
func ExampleNewJSONLinesObserver() {
	obs := lease.NewJSONLinesObserver(os.Stdout)
	obs.Observe(lease.Event{Kind: lease.EventGrant, Node: "h1", Resource: "job", Token: 1,
		Local: time.Second, Wall: leasetest.Epoch, Deadline: 10 * time.Second})
	// Output:
	// {"kind":"grant","node":"h1","resource":"job","token":1,"local_ns":1000000000,"wall":"2026-01-01T00:00:00Z","deadline_ns":10000000000}
}

// must returns v, or panics on err: examples keep error handling out of the
// story they tell.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
