package holderkit

import (
	"fmt"

	"github.com/leasesim/leasesim/lease"
)

// RefuseRegistrations fails an Acquire of resource that asks for attached
// registrations (opts.Keys), for a holder that supports none: at once,
// through opts.OnLost with token 0 and lease.ErrBadRequest. It reports
// whether it refused; an Acquire without Keys is left to the holder.
func RefuseRegistrations(resource string, opts lease.AcquireOptions) bool {
	if len(opts.Keys) == 0 {
		return false
	}
	if opts.OnLost != nil {
		opts.OnLost(resource, 0, fmt.Errorf("acquire %q: attached registrations are not supported: %w",
			resource, lease.ErrBadRequest))
	}
	return true
}
