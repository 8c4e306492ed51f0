package sim

// Armed reports whether a fault is armed on the node's failpoint name. It
// records nothing, so a host may ask at every message (an event-triggered
// fault) and reach the failpoint only when it is armed: runs without such
// faults keep their trace.
func (n *Node) Armed(name string) bool {
	for _, fp := range n.failpoints {
		if fp.name == name {
			return true
		}
	}
	return false
}
