package simnet_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/leasesim/leasesim/simnet"
)

// An HTTP server on the simulated network, and a client that dials it
// through the network. In a test, put this in synctest.Test(t, func(t
// *testing.T) { ... }) and every latency and timeout runs on the bubble's
// clock (TestServerInABubble is this example in a bubble); an Example has
// no *testing.T, so here the network runs on real time.
func ExampleNewServer() {
	n := simnet.New(simnet.Seed(1), simnet.Latency(time.Millisecond))
	srv := simnet.NewServer(n, "api:80", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	defer srv.Close()

	resp, err := srv.Client().Get(srv.URL + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(body))
	// Output: 200 OK hello from api:80
}

// A partition between the client and the server stalls the request (as
// TCP retransmits across a cut, nothing is lost or reset), so only the
// client's own timeout notices; after the heal it gets through again.
func ExampleNetwork_Partition() {
	n := simnet.New(simnet.Latency(time.Millisecond))
	srv := simnet.NewServer(n, "api:80", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	client := srv.Client()
	client.Timeout = 100 * time.Millisecond

	get := func() string {
		resp, err := client.Get(srv.URL)
		if ue, ok := err.(*url.Error); ok && ue.Timeout() {
			return "timed out"
		} else if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	fmt.Println("before:", get())
	n.Partition(simnet.ClientHost, "api")
	fmt.Println("partitioned:", get())
	n.Heal(simnet.ClientHost, "api")
	fmt.Println("healed:", get())
	// Output:
	// before: ok
	// partitioned: timed out
	// healed: ok
}

// Hosts dial each other with the DialContext signature, so Host.Dial
// plugs into http.Transport.DialContext, grpc.WithContextDialer or any
// client that takes a dialer.
func ExampleHost_Dial() {
	n := simnet.New(simnet.Latency(time.Millisecond))
	l, err := n.Host("db").Listen("tcp", "db:5432")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprint(c, "ready")
	}()

	c, err := n.Host("app").Dial(context.Background(), "tcp", "db:5432")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	msg, _ := io.ReadAll(c)
	fmt.Println(c.RemoteAddr(), string(msg))

	_, err = n.Host("app").Dial(context.Background(), "tcp", "cache:6379")
	fmt.Println(err)
	// Output:
	// db:5432 ready
	// dial tcp: lookup cache: no such host
}
