package realtimetest

import (
	"time"

	"github.com/leasesim/leasesim/lease"
)

// Config is the lease configuration of every test that runs lease code on
// real clocks: a 2s TTL renewed every 100ms, with a request timeout of a
// second. A holder loses its lease only if the machine starves it for
// close to two seconds, so a test on a shared, loaded machine waits for
// events, never for luck; a test waits out the TTL only where its story
// is an expiry. Backoff is short so that a waiter takes an expired lease
// soon after the grantor frees it.
func Config() lease.Config {
	return lease.Config{
		TTL:            2 * time.Second,
		RenewInterval:  100 * time.Millisecond,
		Rho:            0.01,
		Margin:         10 * time.Millisecond,
		RequestTimeout: time.Second,
		BackoffMin:     5 * time.Millisecond,
		BackoffMax:     50 * time.Millisecond,
	}
}
