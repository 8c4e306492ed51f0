package history

import (
	"slices"
	"strings"
)

// The fault kinds leasesim's harness records in a FaultWindow's Kind (the
// names of the kernel's fault kinds). A producer may name others; the
// checkers cite every window as evidence and read these kinds where a
// property depends on the fault (a crash ends a holder's life, a pause
// stops its clock, a partition cuts it off).
const (
	FaultPartition       = "partition"        // both directions cut between two groups; Detail names them
	FaultPartitionOneWay = "partition-oneway" // Nodes[0] → Nodes[1] cut
	FaultIsolate         = "isolate"          // Nodes[0] cut off from everyone
	FaultSplit           = "split"            // cut between several groups; Detail names them
	FaultBridge          = "bridge"           // two groups cut, Nodes[0] bridges them; Detail names them
	FaultHeal            = "heal"             // every partition removed
	FaultLink            = "link"             // link Nodes[0] → Nodes[1] reconfigured
	FaultLinkReset       = "link-reset"       // every link back to default
	FaultDrift           = "drift"            // Nodes[0]'s clock drifting
	FaultStep            = "step"             // Nodes[0]'s wall clock stepped
	FaultPause           = "pause"            // Nodes[0] paused
	FaultResume          = "resume"           // Nodes[0] resumed
	FaultCrash           = "crash"            // Nodes[0] crashed, until its restart
	FaultRestart         = "restart"          // Nodes[0] restarted
	FaultFailpointArm    = "failpoint-arm"    // a failpoint armed on Nodes[0]
	FaultFailpointHit    = "failpoint-hit"    // an armed failpoint fired on Nodes[0]
)

// FaultStallConns is a fault the goroutine host records (gohost), not a
// kernel kind, so FaultKinds does not list it: the connections open
// between two or more groups stall, both ways, until the heal, while new
// connections work; Detail names the groups. The nodes are not cut off.
const FaultStallConns = "stall-conns"

// HostFaultKinds lists the fault kinds a host records besides the
// kernel's (FaultKinds): faults of connections, which the kernel's
// message network does not have.
var HostFaultKinds = []string{FaultStallConns}

// FaultKinds lists the fault kinds above, in the kernel's order.
var FaultKinds = []string{FaultPartition, FaultPartitionOneWay, FaultIsolate, FaultSplit, FaultBridge, FaultHeal,
	FaultLink, FaultLinkReset, FaultDrift, FaultStep, FaultPause, FaultResume, FaultCrash, FaultRestart,
	FaultFailpointArm, FaultFailpointHit}

// Node returns the node the fault acted on (its first node), or "" for a
// fault of the whole network.
func (f *FaultWindow) Node() string {
	if len(f.Nodes) == 0 {
		return ""
	}
	return f.Nodes[0]
}

// Peer returns the fault's second node (a one-way partition's or a link's
// far end), or "".
func (f *FaultWindow) Peer() string {
	if len(f.Nodes) < 2 {
		return ""
	}
	return f.Nodes[1]
}

// FailpointDetail is the Detail of a failpoint-arm or failpoint-hit window
// on every host: the failpoint's name, a colon, and the action ("before-write:
// pause"). FaultWindow.Failpoint reads the name back.
func FailpointDetail(name, action string) string { return name + ": " + action }

// Failpoint returns the failpoint a failpoint-arm or failpoint-hit window
// names (FailpointDetail), or "" for any other window.
func (f *FaultWindow) Failpoint() string {
	if f.Kind != FaultFailpointArm && f.Kind != FaultFailpointHit {
		return ""
	}
	name, _, _ := strings.Cut(f.Detail, ": ")
	return name
}

// Touches reports whether the fault involved node: it is one of Nodes, or,
// for a partition, split, bridge or connection stall, a member of one of
// the groups Detail names ("[a b] | [c]").
func (f *FaultWindow) Touches(node string) bool {
	if slices.Contains(f.Nodes, node) {
		return true
	}
	switch f.Kind {
	case FaultPartition, FaultSplit, FaultBridge, FaultStallConns:
		for _, g := range strings.Split(f.Detail, "|") {
			if slices.Contains(strings.Fields(strings.Trim(strings.TrimSpace(g), "[]")), node) {
				return true
			}
		}
	}
	return false
}
