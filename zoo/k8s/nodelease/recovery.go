package nodelease

import "fmt"

// Recovery is how a kubelet's heartbeat gets off a connection to the API
// server that stopped answering without being reset. Over HTTP/2 every
// request of a client shares one connection, and a request that times
// out resets its stream, not the connection: the next heartbeat goes to
// the same connection and times out too, until something closes it.
type Recovery int

const (
	// HealthCheck is today's kubelet, over HTTP/2 (kubernetes#108107):
	// client-go's HTTP/2 health check (#95981: k8s.io/apimachinery/pkg/util/
	// net.SetTransportDefaults sets golang.org/x/net/http2's ReadIdleTimeout
	// to 30 s and PingTimeout to 15 s: a PING after 30 s without a frame
	// read, the connection closed when no answer comes 15 s later), and an
	// onRepeatedHeartbeatFailure hook that closes the idle connections of
	// clientConfig.Transport (cmd/kubelet/app/server.go,
	// buildKubeletClientConfig). A kubelet whose client config comes from
	// a kubeconfig without certificate rotation, as here, has no
	// clientConfig.Transport: the hook closes nothing, and the health
	// check alone gets it off a stalled connection.
	HealthCheck Recovery = iota
	// CloseAll is the kubelet with DISABLE_HTTP2 set: HTTP/1.1, a dialer
	// from client-go's connrotation (updateDialer), and a hook that closes
	// every connection it made, active or idle (Dialer.CloseAll): #52176
	// and #63492, the kubelet's recovery on every protocol until #108107.
	CloseAll
	// NoRecovery is a kubelet before #52176 on a client-go before #95981:
	// HTTP/2 without the health check (HTTP2_READ_IDLE_TIMEOUT_SECONDS=0)
	// and no hook. It keeps a stalled connection until TCP gives up on it
	// (some 15 minutes on Linux; never on the goroutine host).
	NoRecovery
)

// String names the recovery.
func (r Recovery) String() string {
	switch r {
	case HealthCheck:
		return "health-check"
	case CloseAll:
		return "close-all"
	case NoRecovery:
		return "none"
	}
	return fmt.Sprintf("Recovery(%d)", int(r))
}

// env is the environment client-go builds the kubelet's transport in:
// client-go's defaults, DISABLE_HTTP2 for CloseAll, the health check off
// for NoRecovery.
func (r Recovery) env() []envVar {
	vars := []envVar{{name: "DISABLE_HTTP2"}, {name: "HTTP2_READ_IDLE_TIMEOUT_SECONDS", value: "30", set: true},
		{name: "HTTP2_PING_TIMEOUT_SECONDS", value: "15", set: true}}
	switch r {
	case CloseAll:
		vars[0] = envVar{name: "DISABLE_HTTP2", value: "true", set: true}
	case NoRecovery:
		vars[1].value = "0" // apimachinery: "User can set the readIdleTimeout to 0 to disable the HTTP/2 connection health check"
	}
	return vars
}
