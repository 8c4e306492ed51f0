package sim

import "fmt"

// FaultKind names a fault the kernel applied.
type FaultKind uint8

// The faults the kernel can apply. Package faults schedules them.
const (
	FaultPartition       FaultKind = iota + 1 // both directions cut between two groups
	FaultPartitionOneWay                      // Node -> Peer cut
	FaultIsolate                              // Node cut off from everyone
	FaultSplit                                // cut between several groups
	FaultBridge                               // two groups cut, Node bridges them
	FaultHeal                                 // every partition removed
	FaultLink                                 // link Node -> Peer reconfigured; Value = max latency
	FaultLinkReset                            // every link back to default
	FaultDrift                                // Node's clock drift set; Value = parts per billion
	FaultStep                                 // Node's wall clock stepped; Value = nanoseconds
	FaultPause                                // Node paused; Value = nanoseconds
	FaultResume                               // Node resumed
	FaultCrash                                // Node crashed
	FaultRestart                              // Node restarted
	FaultFailpointArm                         // a failpoint armed on Node
	FaultFailpointHit                         // an armed failpoint fired on Node
)

var faultKindNames = [...]string{
	FaultPartition: "partition", FaultPartitionOneWay: "partition-oneway", FaultIsolate: "isolate",
	FaultSplit: "split", FaultBridge: "bridge", FaultHeal: "heal", FaultLink: "link",
	FaultLinkReset: "link-reset", FaultDrift: "drift", FaultStep: "step", FaultPause: "pause",
	FaultResume: "resume", FaultCrash: "crash", FaultRestart: "restart",
	FaultFailpointArm: "failpoint-arm", FaultFailpointHit: "failpoint-hit",
}

// String returns the fault kind's name.
func (k FaultKind) String() string {
	if int(k) < len(faultKindNames) && faultKindNames[k] != "" {
		return faultKindNames[k]
	}
	return "unknown"
}

// MarshalText writes the kind's name, so fault logs read well as JSON.
func (k FaultKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name, so fault logs read back from JSON.
func (k *FaultKind) UnmarshalText(text []byte) error {
	for i, name := range faultKindNames {
		if name != "" && name == string(text) {
			*k = FaultKind(i)
			return nil
		}
	}
	return fmt.Errorf("sim: unknown fault kind %q", text)
}

// FaultRecord is one entry of the world's fault log: what acted, on whom,
// and when, in true time.
type FaultRecord struct {
	At     Time      `json:"at_ns"`
	Kind   FaultKind `json:"kind"`
	Node   string    `json:"node,omitempty"`
	Peer   string    `json:"peer,omitempty"`
	Value  int64     `json:"value,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

// fault logs a fault and adds it to the trace.
func (w *World) fault(kind FaultKind, node, peer NodeID, value int64, detail string) {
	w.record(RecFault, node, peer, uint64(kind), uint64(value))
	if len(w.faults) >= w.cfg.Limits.Faults {
		w.limitHit(LimitFaults)
		return
	}
	rec := FaultRecord{At: w.now, Kind: kind, Value: value, Detail: detail}
	if node >= 0 {
		rec.Node = w.nodes[node].name
	}
	if peer >= 0 {
		rec.Peer = w.nodes[peer].name
	}
	w.faults = append(w.faults, rec)
}

// Faults returns the fault log so far, in the order the faults acted.
func (w *World) Faults() []FaultRecord { return w.faults }
