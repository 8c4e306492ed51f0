package simnet_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/simnet"
)

var hello = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "hello %s from %s", r.RemoteAddr, r.Host)
})

// TestServerInABubble: the httptest-style server answers over the
// network, a partition makes the client time out on the bubble's clock,
// and after the heal it answers again; Close leaves no goroutine behind
// (synctest.Test would report one as a deadlock).
func TestServerInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := simnet.New(simnet.Seed(1), simnet.Latency(5*time.Millisecond))
		srv := simnet.NewServer(n, "api:80", hello)
		defer srv.Close()
		assert.Equal(t, "http://api:80", srv.URL)
		client := srv.Client()
		client.Timeout = 2 * time.Second

		start := time.Now()
		body, err := get(client, srv.URL)
		require.NoError(t, err)
		assert.Regexp(t, `^hello client:\d+ from api:80$`, body)
		assert.Equal(t, 20*time.Millisecond, time.Since(start), "connect, request and response: four latencies")

		n.Partition(simnet.ClientHost, "api")
		start = time.Now()
		_, err = get(client, srv.URL)
		var ue *url.Error
		require.ErrorAs(t, err, &ue)
		assert.True(t, ue.Timeout(), "the client's own timeout notices the partition: %v", err)
		assert.Equal(t, 2*time.Second, time.Since(start))

		n.HealAll()
		body, err = get(client, srv.URL)
		require.NoError(t, err, "healed")
		assert.Contains(t, body, "hello")
	})
}

func get(c *http.Client, u string) (string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestServerClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := simnet.New()
		srv := simnet.NewServer(n, "api:80", hello)
		client := srv.Client()
		_, err := get(client, srv.URL)
		require.NoError(t, err)
		srv.Close()
		srv.Close() // twice: nothing
		_, err = get(client, srv.URL)
		assert.ErrorContains(t, err, "connection refused", "nothing listens after Close")
		again := simnet.NewServer(n, "api:80", hello)
		defer again.Close()
		_, err = get(again.Client(), again.URL)
		assert.NoError(t, err, "the port is free again")
	})
}

func TestNewServerBadAddress(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"api", "missing port in address"},
		{"api:http", `bad port "http"`},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				defer func() {
					msg, _ := recover().(string)
					assert.Contains(t, msg, "simnet: NewServer: ")
					assert.Contains(t, msg, tc.want)
				}()
				simnet.NewServer(simnet.New(), tc.addr, hello)
				t.Error(errors.New("no panic"))
			})
		})
	}
}

// TestServerDeterministic: in a bubble, the same seed gives the same
// request timings through net/http on both ends, and another seed others.
func TestServerDeterministic(t *testing.T) {
	timings := func(seed uint64) []time.Duration {
		var out []time.Duration
		synctest.Test(t, func(t *testing.T) {
			n := simnet.New(simnet.Seed(seed), simnet.UniformLatency(time.Millisecond, 20*time.Millisecond))
			srv := simnet.NewServer(n, "api:80", hello)
			defer srv.Close()
			client := srv.Client()
			for range 5 {
				start := time.Now()
				_, err := get(client, srv.URL)
				require.NoError(t, err)
				out = append(out, time.Since(start))
			}
		})
		return out
	}
	a := timings(7)
	assert.Equal(t, a, timings(7))
	assert.NotEqual(t, a, timings(8))
}
