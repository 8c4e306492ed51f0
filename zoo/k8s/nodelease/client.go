package nodelease

import (
	"context"
	"net/http"
	"os"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// envVar is one variable of the environment client-go reads when it
// builds a transport; unset when !set.
type envVar struct {
	name, value string
	set         bool
}

// clientEnv serialises buildInEnv's builds: the environment is the
// process's.
var clientEnv sync.Mutex

// buildInEnv runs build with the environment variables vars set (or
// unset), then puts them back as they were. client-go reads DISABLE_HTTP2,
// HTTP2_READ_IDLE_TIMEOUT_SECONDS and HTTP2_PING_TIMEOUT_SECONDS as it
// builds a client's transport (k8s.io/apimachinery/pkg/util/net,
// SetTransportDefaults): every client of a run is built with its
// configuration's values, whatever the environment the tests run in.
func buildInEnv(vars []envVar, build func() error) error {
	clientEnv.Lock()
	defer clientEnv.Unlock()
	type saved struct {
		value string
		ok    bool
	}
	old := make([]saved, len(vars))
	for i, v := range vars {
		old[i].value, old[i].ok = os.LookupEnv(v.name)
		if v.set {
			os.Setenv(v.name, v.value)
		} else {
			os.Unsetenv(v.name)
		}
	}
	defer func() {
		for i, v := range vars {
			if old[i].ok {
				os.Setenv(v.name, old[i].value)
			} else {
				os.Unsetenv(v.name)
			}
		}
	}()
	return build()
}

// httpsConfig is the rest.Config of a client of k8s.SecureAPIServer, on
// a node whose life is life, whose requests rec records and time out
// after timeout, not throttled:
// HTTPS, HTTP/2 negotiated by ALPN unless the environment it is built in
// disables it (buildInEnv). client-go builds its transport;
// k8s.ReproducibleHTTP2 wraps it.
func httpsConfig(life context.Context, rec func(http.RoundTripper) http.RoundTripper, timeout time.Duration) *rest.Config {
	reproducible := k8s.ReproducibleHTTP2(life)
	return &rest.Config{Host: k8s.SecureAPIHost, TLSClientConfig: k8s.TLSClientConfig(), Timeout: timeout, QPS: -1,
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper { return rec(reproducible(rt)) }}
}
