package sim

import "strings"

// Partition cuts both directions between every node of a and every node of b.
func (n *Network) Partition(a, b []NodeID) {
	n.cutBetween(a, b, true)
	n.w.fault(FaultPartition, -1, -1, 0, n.groups(a, b))
}

// PartitionOneWay cuts messages from -> to and leaves to -> from alone.
func (n *Network) PartitionOneWay(from, to NodeID) {
	n.ensure()
	n.setBlocked(from, to, true)
	n.w.fault(FaultPartitionOneWay, from, to, 0, "")
}

// Isolate cuts a node off from every other node, in both directions.
func (n *Network) Isolate(id NodeID) {
	n.ensure()
	for other := range NodeID(n.size) {
		n.setBlocked(id, other, true)
		n.setBlocked(other, id, true)
	}
	n.w.fault(FaultIsolate, id, -1, 0, "")
}

// Split cuts every link between nodes of different groups. A node that is in
// no group keeps all its links, so it can reach every side.
func (n *Network) Split(groups ...[]NodeID) {
	for i := range groups {
		for j := i + 1; j < len(groups); j++ {
			n.cutBetween(groups[i], groups[j], true)
		}
	}
	n.w.fault(FaultSplit, -1, -1, int64(len(groups)), n.groups(groups...))
}

// Bridge splits a from b but leaves bridge connected to both sides, the
// classic "bridge" nemesis: a majority that overlaps through one node.
func (n *Network) Bridge(a, b []NodeID, bridge NodeID) {
	for _, side := range [][]NodeID{a, b} {
		for _, id := range side {
			if id == bridge {
				panic("sim: Bridge: the bridge node must not be in either group")
			}
		}
	}
	n.cutBetween(a, b, true)
	n.w.fault(FaultBridge, bridge, -1, 0, n.groups(a, b))
}

// Heal removes every partition. Link latency and loss settings stay.
func (n *Network) Heal() {
	n.ensure()
	n.pairs.heal()
	n.w.fault(FaultHeal, -1, -1, 0, "")
}

func (n *Network) cutBetween(a, b []NodeID, cut bool) {
	n.ensure()
	for _, x := range a {
		for _, y := range b {
			n.setBlocked(x, y, cut)
			n.setBlocked(y, x, cut)
		}
	}
}

// groups formats node groups as "[a b] | [c]".
func (n *Network) groups(groups ...[]NodeID) string {
	var sb strings.Builder
	for i, g := range groups {
		if i > 0 {
			sb.WriteString(" | ")
		}
		sb.WriteByte('[')
		for j, id := range g {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(n.w.nodes[id].name)
		}
		sb.WriteByte(']')
	}
	return sb.String()
}
