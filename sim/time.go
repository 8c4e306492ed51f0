package sim

import "github.com/leasesim/leasesim/truetime"

// Time is true simulated time: nanoseconds since the start of a run, the
// one true time of package truetime. Node code never sees it; nodes read
// their own drifting clocks instead.
type Time = truetime.Time

// Never is a time later than any event.
const Never = truetime.Never
