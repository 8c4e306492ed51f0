package sim

import "time"

// FailAction is what an armed failpoint does to the node that reaches it.
type FailAction uint8

// The actions a failpoint can take.
const (
	FailPause FailAction = iota + 1 // pause the node there for the armed duration
	FailCrash                       // crash the node there
)

// String names the action: "pause", "crash", or "none".
func (a FailAction) String() string {
	switch a {
	case FailPause:
		return "pause"
	case FailCrash:
		return "crash"
	}
	return "none"
}

type armedFailpoint struct {
	name   string
	action FailAction
	pause  time.Duration
}

// ArmFailpoint makes the next time the node reaches the named failpoint pause
// it for d (FailPause) or crash it (FailCrash). Each arming fires once.
func (n *Node) ArmFailpoint(name string, action FailAction, d time.Duration) {
	n.failpoints = append(n.failpoints, armedFailpoint{name: name, action: action, pause: d})
	n.w.fault(FaultFailpointArm, n.id, -1, int64(d), name+": "+action.String())
}

// DisarmFailpoints removes every armed failpoint of the node.
func (n *Node) DisarmFailpoints() { n.failpoints = n.failpoints[:0] }

// Failpoint marks a named point in node code. If a fault is armed on it, the
// node pauses here (then runs when it resumes) or crashes here (then never
// runs). Otherwise then runs at once. Code after the call must do nothing
// observable: everything that follows the point belongs in then.
func (n *Node) Failpoint(name string, then func()) { n.FailpointVia(name, then, nil) }

// FailpointVia is Failpoint for a host that runs node code through a
// wrapper of its own (a recover boundary, say): wherever Failpoint would
// call then, it calls via(then), at once or when the node resumes. A nil
// via calls then directly. Unlike wrapping then in a closure, it costs no
// allocation when no fault is armed on the point.
func (n *Node) FailpointVia(name string, then func(), via func(func())) {
	n.mustRun("Failpoint")
	for i, fp := range n.failpoints {
		if fp.name != name {
			continue
		}
		n.failpoints = append(n.failpoints[:i], n.failpoints[i+1:]...)
		n.w.record(RecFailpoint, n.id, -1, fnv64(name), uint64(fp.action))
		n.w.fault(FaultFailpointHit, n.id, -1, int64(fp.pause), name+": "+fp.action.String())
		if fp.action == FailCrash {
			n.Crash()
			return
		}
		if via != nil {
			n.SetTimer(0, func() { via(then) }) // queued now, waits for the resume
		} else {
			n.SetTimer(0, then)
		}
		n.Pause(fp.pause)
		return
	}
	n.w.record(RecFailpoint, n.id, -1, fnv64(name), 0)
	if via != nil {
		via(then)
		return
	}
	then()
}
