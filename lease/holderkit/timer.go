package holderkit

import "github.com/leasesim/leasesim/lease"

// StopTimer stops t, if there is one.
func StopTimer(t lease.Timer) {
	if t != nil {
		t.Stop()
	}
}
