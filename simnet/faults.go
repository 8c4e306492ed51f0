package simnet

// Partition cuts both directions between hosts a and b. Nothing is lost:
// segments that reach a cut link wait, in order, until it heals and then
// travel with a fresh latency, as TCP retransmits across a partition, so
// only the code's own deadlines and timeouts notice (a Dial waits too).
// Hosts are named; one not yet added may be cut in advance.
func (n *Network) Partition(a, b string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.core.Cut(a, b)
	n.core.Cut(b, a)
}

// PartitionOneWay cuts the link from one host to another only: what from
// sends to to waits, what to sends to from still arrives.
func (n *Network) PartitionOneWay(from, to string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.core.Cut(from, to)
}

// Heal restores both directions between hosts a and b, and sends on what
// the cut held back.
func (n *Network) Heal(a, b string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.core.Uncut(a, b)
	n.core.Uncut(b, a)
}

// HealAll restores every link.
func (n *Network) HealAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.core.HealAll()
}

// ResetHost resets every open connection of the host named name, as if it
// sent a RST on each (a middlebox or a host's reset, not a crash: it keeps
// its listeners and may dial again). Each end reads ECONNRESET after what
// it had already received. It returns how many connections it reset.
func (n *Network) ResetHost(name string) int { return n.reset(name, "") }

// ResetBetween resets every open connection between hosts a and b, whichever
// dialled, and returns how many it reset.
func (n *Network) ResetBetween(a, b string) int { return n.reset(a, b) + n.reset(b, a) }

// reset resets host's connections to peer ("" for any).
func (n *Network) reset(host, peer string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.hosts[host]
	if h == nil {
		return 0
	}
	return h.life.Reset(peer)
}
