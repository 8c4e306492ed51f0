package faults

// lifeState is what a schedule alone says about a node's process at some
// point of its timeline.
type lifeState uint8

const (
	alive   lifeState = iota // up or paused
	down                     // crashed by a crash event, not restarted yet
	unknown                  // a crash failpoint was armed: it may or may not have fired
)

// checkTimeline walks the events in the order they act and rejects
// overlapping contradictions: crashing a crashed node, restarting a node
// that is not crashed, pausing a crashed node.
//
// A crash failpoint fires whenever the node next reaches it, which the
// schedule cannot know, so once one is armed on a node that node's state is
// unknown for the rest of the schedule and is not checked further. The
// kernel tolerates the same calls (a restart of a running node does
// nothing), so this never hides a crash of the simulation, only a likely
// mistake in the schedule.
func (s Schedule) checkTimeline() error {
	state := make(map[string]lifeState) // looked up, never iterated
	for _, i := range s.order() {
		e := s.Events[i]
		st := state[e.Node]
		var err *ValidationError
		switch e.Kind {
		case KindCrash:
			if st == down {
				err = bad("node", "%q is already crashed at %v", e.Node, e.At)
			} else if st == alive {
				state[e.Node] = down
			}
		case KindRestart:
			if st == alive {
				err = bad("node", "%q is not crashed at %v", e.Node, e.At)
			} else if st == down {
				state[e.Node] = alive
			}
		case KindPause:
			if st == down {
				err = bad("node", "%q is crashed at %v and cannot be paused", e.Node, e.At)
			}
		case KindFailpoint:
			if e.Action == ActionCrash {
				state[e.Node] = unknown
			}
		}
		if err != nil {
			err.Index, err.Kind = i, e.Kind
			return err
		}
	}
	return nil
}
