package scenarios

import (
	"fmt"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// lockLoadStream names the world's random stream a drawn lock load
// (LockLoad.Drawn) comes from: a stream of its own, so the nemesis's draw
// of a seed is the same with or without it.
const lockLoadStream = "lock-load"

// draw returns the lock load of one run. A Drawn load draws, from the
// world's lockLoadStream, how many of its Keys keys the lease covers (one
// to Keys, each as likely) and, if it reads back, whether this seed's
// holders do (one seed in two): swarm testing over the workload's paths,
// as the nemesis's draw is over fault kinds. Any other load is l, and
// draws nothing.
func (l LockLoad) draw(w *sim.World) LockLoad {
	if !l.Drawn {
		return l
	}
	r := w.Rand(lockLoadStream)
	l.Keys = 1 + r.IntN(max(l.Keys, 1))
	l.ReadBack = l.ReadBack && r.IntN(2) == 0
	l.Drawn = false
	return l
}

// blindFor reports whether a Drawn load falls back, against impl, to one
// key written blind on every seed: impl does not declare reads, which the
// draw's read-back needs. Its runs are then those of the load without
// keys or reads, and draw nothing.
func (l LockLoad) blindFor(impl lease.Impl) bool {
	return l.Drawn && l.ReadBack && !impl.Capabilities.Reads
}

// blind is l as it runs when blindFor: one key, written blind, drawn on
// no seed.
func (l LockLoad) blind() LockLoad {
	l.Keys, l.ReadBack, l.Drawn = 0, false, false
	return l
}

// blindAdaptation is Adaptations' line for a load that falls back to one
// key written blind.
func blindAdaptation(l LockLoad, impl lease.Impl) string {
	return fmt.Sprintf("its holders wrote one key blind on every seed, drawing neither how many of %d keys "+
		"a lease covers nor read-back: %s does not declare reads", max(l.Keys, 1), impl.Name)
}
