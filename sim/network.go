package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// LinkConfig describes one direction of a link between two nodes.
type LinkConfig struct {
	// Latency is the one-way delay distribution. A message is never delivered
	// earlier than Latency.Min after it was sent.
	Latency Dist `json:"latency"`
	// Loss, Duplicate and Reorder are probabilities in [0, 1]. A reordered
	// message is held back by an extra ReorderDelay so later ones overtake it.
	Loss         float64  `json:"loss,omitempty"`
	Duplicate    float64  `json:"duplicate,omitempty"`
	Reorder      float64  `json:"reorder,omitempty"`
	ReorderDelay Duration `json:"reorder_delay,omitempty"`
	// InFlightMax bounds the messages in flight on the link; a send beyond it
	// is dropped (DropOverflow). Zero means the world's Limits.InFlight.
	InFlightMax int `json:"in_flight_max,omitempty"`
}

// DefaultLink is a healthy LAN link: 1 to 5 ms, no loss.
var DefaultLink = LinkConfig{Latency: UniformDist(time.Millisecond, 5*time.Millisecond)}

// Validate reports the first field that makes c unusable.
func (c LinkConfig) Validate() error {
	if err := c.Latency.Validate(); err != nil {
		return fmt.Errorf("latency.%w", err)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"loss", c.Loss}, {"duplicate", c.Duplicate}, {"reorder", c.Reorder}} {
		if !(p.v >= 0 && p.v <= 1) {
			return fmt.Errorf("%s: probability must be in [0, 1], got %v", p.name, p.v)
		}
	}
	if c.ReorderDelay < 0 {
		return fmt.Errorf("reorder_delay: negative duration %v", time.Duration(c.ReorderDelay))
	}
	if c.InFlightMax < 0 {
		return fmt.Errorf("in_flight_max: negative bound %d", c.InFlightMax)
	}
	return nil
}

// link is a LinkConfig compiled to integers for the hot path.
type link struct {
	latency      Dist
	lossP        uint64 // probabilities out of 2^64
	dupP         uint64
	reorderP     uint64
	reorderDelay time.Duration
	inFlightMax  int32
}

func probability(p float64) uint64 {
	if p >= 1 {
		return math.MaxUint64
	}
	return uint64(math.Ldexp(p, 64))
}

func compileLink(c LinkConfig, inFlightDefault int) link {
	c.Latency.compile()
	bound := c.InFlightMax
	if bound == 0 {
		bound = inFlightDefault
	}
	return link{
		latency: c.Latency, lossP: probability(c.Loss), dupP: probability(c.Duplicate),
		reorderP: probability(c.Reorder), reorderDelay: time.Duration(c.ReorderDelay),
		inFlightMax: int32(min(bound, math.MaxInt32)),
	}
}

// DropReason says why the network lost a message.
type DropReason uint8

// The reasons a message is dropped.
const (
	DropLoss      DropReason = iota + 1 // random loss on the link
	DropPartition                       // a partition blocked it, at send or at delivery
	DropOverflow                        // the link's in-flight bound was reached
	DropCrashed                         // the receiver was crashed when it arrived
	DropUnhandled                       // the receiver had installed no handler
)

var dropReasonNames = [...]string{DropLoss: "loss", DropPartition: "partition", DropOverflow: "overflow",
	DropCrashed: "crashed", DropUnhandled: "unhandled"}

// String returns the reason's name.
func (r DropReason) String() string {
	if int(r) < len(dropReasonNames) && dropReasonNames[r] != "" {
		return dropReasonNames[r]
	}
	return "unknown"
}

// Network carries messages between nodes. Links are directed: the link from
// a to b has its own latency, loss and partition state. The zero
// configuration of every link is the world's Config.Link.
type Network struct {
	w       *World
	rand    *rand.Rand
	size    int    // node count when last ensured: the bound of a valid node id
	links   []link // links[0] is the default link
	configs []LinkConfig
	details []string  // per configuration: its fault record's detail, once formatted
	pairs   pairTable // per ordered pair: link, cut and in-flight count, for the pairs that have any
	nextID  uint64
}

func (n *Network) init(w *World, def LinkConfig) {
	n.w = w
	n.rand = w.Rand("network")
	n.links = []link{compileLink(def, w.cfg.Limits.InFlight)}
	n.configs = []LinkConfig{def}
	n.details = []string{""}
}

// ensure sizes the per-pair table for the current number of nodes.
func (n *Network) ensure() {
	if size := len(n.w.nodes); size != n.size {
		n.size = size
		n.pairs.resize(size)
	}
}

// Blocked reports whether a partition currently cuts the link from -> to.
func (n *Network) Blocked(from, to NodeID) bool {
	n.ensure()
	return n.pairs.blocked(from, to)
}

func (n *Network) setBlocked(from, to NodeID, cut bool) {
	if from == to {
		return // a node always reaches itself
	}
	n.pairs.setBlocked(from, to, cut)
}

// InFlight returns how many messages are in flight from -> to.
func (n *Network) InFlight(from, to NodeID) int {
	n.ensure()
	if s := n.pairs.find(from, to); s != nil {
		return int(s.inFlight)
	}
	return 0
}

// Link returns the configuration of the link from -> to.
func (n *Network) Link(from, to NodeID) LinkConfig {
	n.ensure()
	if s := n.pairs.find(from, to); s != nil {
		return n.configs[s.link]
	}
	return n.configs[0]
}

// SetLink replaces the configuration of the link from -> to.
func (n *Network) SetLink(from, to NodeID, c LinkConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	n.ensure()
	idx := slices.Index(n.configs, c) // a configuration used before is shared
	if idx < 0 {
		if len(n.links) == math.MaxUint16 {
			return errors.New("sim: too many distinct link configurations")
		}
		n.links = append(n.links, compileLink(c, n.w.cfg.Limits.InFlight))
		n.configs = append(n.configs, c)
		n.details = append(n.details, "")
		idx = len(n.links) - 1
	}
	n.pairs.setLink(from, to, uint16(idx))
	n.w.fault(FaultLink, from, to, int64(c.Latency.Max), n.detail(idx))
	return nil
}

// detail returns the fault record's detail of configuration idx. A link
// event on every node sets the same configuration on each pair, so it is
// formatted once.
func (n *Network) detail(idx int) string {
	if n.details[idx] == "" {
		c := n.configs[idx]
		n.details[idx] = fmt.Sprintf("latency %s %v..%v loss %g dup %g reorder %g",
			c.Latency.Kind, c.Latency.Min, c.Latency.Max, c.Loss, c.Duplicate, c.Reorder)
	}
	return n.details[idx]
}

// ResetLinks returns every link to the default configuration.
func (n *Network) ResetLinks() {
	n.ensure()
	n.pairs.resetLinks()
	n.links, n.configs, n.details = n.links[:1], n.configs[:1], n.details[:1]
	n.w.fault(FaultLinkReset, -1, -1, 0, "all links back to default")
}

// send is Node.Send's network half. It reports whether a copy was queued.
func (n *Network) send(from, to NodeID, payload any, release func(any)) bool {
	n.ensure()
	w := n.w
	n.nextID++
	id := n.nextID
	digest, ok := payloadDigest(payload)
	if !ok {
		w.undigested++
	}
	w.record(RecSend, from, to, id, digest)
	p := n.pairs.get(from, to) // valid to the end: nothing below adds a pair
	if p.blocked {
		w.record(RecDrop, from, to, id, uint64(DropPartition))
		return false
	}
	l := &n.links[p.link]
	if l.lossP != 0 && n.rand.Uint64() < l.lossP {
		w.record(RecDrop, from, to, id, uint64(DropLoss))
		return false
	}
	m := message{payload: payload, release: release, id: id, from: from, to: to}
	first := n.enqueue(l, p, m)
	if l.dupP != 0 && n.rand.Uint64() < l.dupP {
		w.record(RecDuplicate, from, to, id, 0)
		if second := n.enqueue(l, p, m); second != noSlot {
			if first == noSlot {
				return true
			}
			w.twin(first, second)
		}
	}
	return first != noSlot
}

// enqueue queues one copy of m on the link l of pair p and returns its
// message slot, or noSlot if the link's in-flight bound dropped it.
func (n *Network) enqueue(l *link, p *pairState, m message) uint32 {
	if p.inFlight >= l.inFlightMax {
		n.w.record(RecDrop, m.from, m.to, m.id, uint64(DropOverflow))
		return noSlot
	}
	delay := l.latency.Sample(n.rand)
	if l.reorderP != 0 && n.rand.Uint64() < l.reorderP {
		delay += l.reorderDelay
	}
	p.inFlight++
	return n.w.scheduleMessage(n.w.now.Add(delay), m)
}

// delivered is called when a message leaves the wire, delivered or dropped.
func (n *Network) delivered(from, to NodeID) {
	n.pairs.find(from, to).inFlight-- // present: the message was counted when sent
}
