package mutants

import (
	"time"

	"github.com/leasesim/leasesim/lease"
)

// wallClockExpiry is a grantor that measures lease expiry with the wall
// clock. When NTP (or an operator, or a VM resume) steps the wall clock
// forward, every live lease expires at once and is granted again while its
// holder still believes. This is how Redis expires keys (by wall-clock
// timestamps), the flaw at the heart of Kleppmann's critique of Redlock.
//
// Technique: the grantor's Clock reads the wall clock: Now is the
// monotonic reading at boot plus the wall time elapsed since boot, so it
// jumps with every step. Timers stay on the monotonic clock, as Go's
// time.AfterFunc does. With no wall clock (Env.Wall nil) the mutant has
// nothing to misread and behaves correctly.
//
// Caught by P1 under clock steps (clock-step).
func wallClockExpiry() lease.Impl {
	impl := mutant("wall-clock-expiry", "the grantor measures expiry with the wall clock, which steps")
	impl.NewGrantor = func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
		if env.Wall != nil && env.Clock != nil {
			env.Clock = newWallReadingClock(env.Clock, env.Wall)
		}
		return lease.NewGrantor(env, cfg)
	}
	return impl
}

// wallReadingClock is a lease.Clock whose readings follow the wall clock
// and whose timers follow the monotonic clock.
type wallReadingClock struct {
	lease.Clock
	wall     lease.WallClock
	bootMono time.Duration // monotonic reading at boot
	bootWall time.Time     // wall reading at boot
}

func newWallReadingClock(mono lease.Clock, wall lease.WallClock) wallReadingClock {
	return wallReadingClock{Clock: mono, wall: wall, bootMono: mono.Now(), bootWall: wall.WallNow()}
}

// Now returns the boot reading plus the wall time elapsed since boot. It
// goes backwards when the wall clock does.
func (c wallReadingClock) Now() time.Duration {
	return c.bootMono + c.wall.WallNow().Sub(c.bootWall)
}
