package etcd

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoServer echoes every line back; it returns its address.
func echoServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return l.Addr().String()
}

// roundTrip sends a line through c and waits up to wait for it back.
func roundTrip(c net.Conn, r *bufio.Reader, wait time.Duration) (time.Duration, error) {
	start := time.Now()
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return 0, err
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := r.ReadString('\n')
	return time.Since(start), err
}

// TestProxyFaults holds the proxy's faults to what the host's doc says:
// a cut holds bytes until it is lifted, a drop loses the replies and closes
// the connection when it ends, latency delays each direction.
func TestProxyFaults(t *testing.T) {
	nt := newNet(1, func(int) string { return "c" })
	t.Cleanup(nt.Close)
	px, err := nt.newProxy("m0", echoServer(t))
	require.NoError(t, err)
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", px.Addr())
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c, bufio.NewReader(c)
	}

	c, r := dial()
	_, err = roundTrip(c, r, time.Second)
	require.NoError(t, err, "a healthy link carries the bytes")

	nt.Cut("m0", "c") // the replies wait
	_, err = roundTrip(c, r, 200*time.Millisecond)
	require.Error(t, err, "a cut reply does not arrive")
	nt.Heal()
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	line, err := r.ReadString('\n')
	require.NoError(t, err, "the held reply arrives once the cut is lifted")
	assert.Equal(t, "ping\n", line)

	nt.SetLink("m0", "c", linkState{latMin: 100 * time.Millisecond, latMax: 100 * time.Millisecond})
	d, err := roundTrip(c, r, time.Second)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, 100*time.Millisecond, "latency delays the replies")
	nt.ResetLinks()

	nt.SetLink("m0", "c", linkState{drop: true}) // the request goes through, the reply is lost
	_, err = roundTrip(c, r, 200*time.Millisecond)
	require.Error(t, err, "a dropped reply never arrives")
	nt.ResetLinks()
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	_, err = r.ReadString('\n')
	require.ErrorIs(t, err, io.EOF, "the connection that lost bytes is closed when the drop ends")

	c2, r2 := dial()
	_, err = roundTrip(c2, r2, time.Second)
	require.NoError(t, err, "a new connection works after the drop")

	nt.Isolate("c")
	_, err = roundTrip(c2, r2, 200*time.Millisecond)
	require.Error(t, err, "an isolated process reaches no member")
	nt.Heal()
}
