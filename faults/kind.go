package faults

// Kind names a fault event. The names are the JSON values of an event's
// "kind" field and are stable once released.
type Kind string

// The kinds of fault event. Kinds lists them with a description and the
// fields each one uses.
const (
	KindPartition       Kind = "partition"        // cut every link between two or more groups, both ways
	KindPartitionOneWay Kind = "partition-oneway" // cut messages from -> to only
	KindIsolate         Kind = "isolate"          // cut one node off from every other node
	KindBridge          Kind = "bridge"           // cut two groups apart, one bridge node reaches both
	KindHeal            Kind = "heal"             // remove every partition
	KindLink            Kind = "link"             // reconfigure links: latency, loss, duplication, reordering
	KindLinkReset       Kind = "link-reset"       // every link back to the world's default
	KindDrift           Kind = "drift"            // set a node's clock drift
	KindStep            Kind = "step"             // step a node's wall clock
	KindPause           Kind = "pause"            // freeze a node for a duration
	KindCrash           Kind = "crash"            // crash a node
	KindRestart         Kind = "restart"          // restart a crashed node
	KindFailpoint       Kind = "failpoint"        // arm a one-shot failpoint on a node
	KindStallConns      Kind = "stall-conns"      // stall the connections open between groups; new ones work
)

// Action is what an armed failpoint does to the node that reaches it.
type Action string

// The actions of a failpoint event.
const (
	ActionPause Action = "pause" // pause the node there for the event's duration
	ActionCrash Action = "crash" // crash the node there
)

// AnyNode in an event's "from" or "to" stands for every node, so that one
// link event can reconfigure many links.
const AnyNode = "*"

// KindInfo describes one kind of fault event, for catalogues such as
// "simrun list".
type KindInfo struct {
	// Name is the kind's JSON name.
	Name Kind `json:"name"`
	// Description is one line saying what the fault does.
	Description string `json:"description"`
	// Fields are the JSON fields the kind uses besides "at" and "kind".
	// Validate rejects any other field set on an event of this kind.
	Fields []string `json:"fields"`
}

// kinds is the catalogue. Its order is the order Kinds returns and the order
// the nemesis enumerates its pool in, so it must only ever grow at the end.
var kinds = [...]KindInfo{
	{KindPartition, "cut every link between two or more groups, both ways", []string{"groups"}},
	{KindPartitionOneWay, "cut messages from one node to another; the reverse direction stays up", []string{"from", "to"}},
	{KindIsolate, "cut one node off from every other node, both ways", []string{"node"}},
	{KindBridge, "cut two groups apart while one bridge node still reaches both", []string{"groups", "bridge"}},
	{KindHeal, "remove every partition; link settings stay", nil},
	{KindLink, "reconfigure links from -> to (\"*\" for every node): latency, loss, duplication, reordering", []string{"from", "to", "link"}},
	{KindLinkReset, "return every link to the world's default configuration", nil},
	{KindDrift, "set a node's clock drift (0.01 runs 1% fast; 0 restores the true rate)", []string{"node", "drift"}},
	{KindStep, "step a node's wall clock forward or backward; the monotonic clock stays", []string{"node", "step"}},
	{KindPause, "freeze a node (GC, stop-the-world, VM migration) for a duration; its clocks keep running", []string{"node", "duration"}},
	{KindCrash, "crash a node: volatile state and unsynced writes are lost", []string{"node"}},
	{KindRestart, "restart a crashed node from its durable storage", []string{"node"}},
	{KindFailpoint, "arm a one-shot failpoint: the next time the node reaches it, pause it there or crash it", []string{"node", "failpoint", "action", "duration"}},
	{KindStallConns, "stall every connection open between two or more groups, both ways, without a reset; new connections work (goroutine host only)", []string{"groups"}},
}

// Kinds returns the catalogue of fault kinds in a fixed order.
func Kinds() []KindInfo {
	out := make([]KindInfo, len(kinds))
	for i, k := range kinds {
		k.Fields = append([]string(nil), k.Fields...)
		out[i] = k
	}
	return out
}

// rank is k's position in the catalogue, or len(kinds) for an unknown kind.
func (k Kind) rank() int {
	for i, ki := range kinds {
		if ki.Name == k {
			return i
		}
	}
	return len(kinds)
}
