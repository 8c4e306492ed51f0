package holderkit

import "github.com/leasesim/leasesim/lease"

// Observe stamps ev with env's node and its clocks (local, and wall if the
// node has one) and reports it to env's observer, if there is one.
func Observe(env lease.Env, ev lease.Event) {
	if env.Observer == nil {
		return
	}
	ev.Node, ev.Local = env.Self, env.Clock.Now()
	if env.Wall != nil {
		ev.Wall = env.Wall.WallNow()
	}
	env.Observer.Observe(ev)
}
