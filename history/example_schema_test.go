package history_test

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
)

// A producer writes a history as it goes (header first, end last), and a
// checker reads it back one event at a time.
func Example_jsonLines() {
	var out strings.Builder
	w, err := history.NewWriter(&out, history.Header{
		Producer: "example", Spec: "lease-store", Determinism: history.Exact,
		Lease:     history.Lease{TTL: 10 * time.Second, RhoPPB: 1_000_000},
		Holders:   []string{"h1"},
		Resources: []string{"lock"},
		Heal:      history.Unknown,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range []history.Event{
		&history.Operation{Client: "h1", Server: "grantor", ID: 1, Call: 0, Processed: 2_000_000, Return: 4_000_000,
			Input:  history.Payload{Kind: "acquire", Resource: "lock", Holder: "h1", TTL: 10 * time.Second},
			Output: history.Payload{Kind: "acquire_reply", Resource: "lock", Token: 1, OK: true}},
		&history.BeliefInterval{Holder: "h1", Resource: "lock", Token: 1, Start: 4_000_000, End: 9_000_000_000,
			Reason: history.EndRelease, LastAct: history.Unknown},
	} {
		if err := w.Write(e); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := w.End(history.RunEnd{At: 10_000_000_000, MaxDriftPPB: -1}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(out.String())

	r, err := history.NewReader(strings.NewReader(out.String()), "example.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		if b, ok := e.(*history.BeliefInterval); ok {
			fmt.Printf("%s believed it held %s under token %d for %v\n", b.Holder, b.Resource, b.Token,
				(b.End - b.Start).Duration())
		}
	}
	fmt.Println("run ended at", r.End().At.Duration())

	// A bad line is named by file, line and field.
	_, err = history.NewReader(strings.NewReader(`{"type":"header","version":1,"producer":"x","determinism":"exact","lease":{"ttl_ns":"10s"},"start_ns":0}`), "bad.jsonl")
	fmt.Fprintln(os.Stdout, err)
	// Output:
	// {"type":"header","version":1,"producer":"example","spec":"lease-store","determinism":"exact","lease":{"ttl_ns":10000000000,"rho_ppb":1000000},"holders":["h1"],"resources":["lock"],"start_ns":0}
	// {"type":"operation","client":"h1","server":"grantor","id":1,"call_ns":0,"processed_ns":2000000,"return_ns":4000000,"input":{"kind":"acquire","resource":"lock","holder":"h1","ttl_ns":10000000000},"output":{"kind":"acquire_reply","resource":"lock","token":1,"ok":true}}
	// {"type":"belief","holder":"h1","resource":"lock","token":1,"start_ns":4000000,"end_ns":9000000000,"reason":"release"}
	// {"type":"end","at_ns":10000000000}
	// h1 believed it held lock under token 1 for 8.996s
	// run ended at 10s
	// bad.jsonl:1: field "lease.ttl_ns": want an integer, got a string
}
