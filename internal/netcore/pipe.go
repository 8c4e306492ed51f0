package netcore

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// segKind is what a segment carries.
type segKind uint8

const (
	segSyn     segKind = iota // connect request
	segSynAck                 // connect accepted
	segRefused                // no listener
	segData                   // bytes
	segFin                    // orderly close
	segRst                    // reset
)

var segNames = [...]string{"connect", "accept", "refuse", "deliver", "fin", "reset"}

// segment is one unit a pipe carries.
type segment struct {
	kind segKind
	data []byte
}

// pipe is one direction of a connection.
type pipe struct {
	name     string
	from, to *Host
	rnd      *rand.Rand
	lastAt   time.Duration
	seq      uint64
	stalled  []segment
	src, dst *endpoint // dst is nil until the connect request arrives
	rev      *pipe
	listen   string // the listener key a connect request is for (client-to-server pipe)

	lossRnd   *rand.Rand    // the loss draws, made on the first lossy delivery
	broken    bool          // a segment was lost: later ones are dropped
	data      uint64        // data segments delivered
	holdUntil time.Duration // a held reply holds the pipe until then
	frozen    bool          // a stalled connection's pipe: nothing passes until Thaw
}

// send puts a segment on its pipe. Callers hold mu.
func (n *Net) send(p *pipe, s segment) {
	at := max(n.hooks.Now()+n.sample(p), p.lastAt)
	p.lastAt = at
	p.seq++
	n.hooks.Schedule(at, p.name, p.seq, func() { n.deliver(p, s) })
}

// deliverable reports whether p can deliver now: its link is up, its
// connection is not stalled and its destination is not paused. Callers
// hold mu.
func (n *Net) deliverable(p *pipe) bool {
	return !n.cut[Link{p.from.name, p.to.name}] && !p.frozen && !p.to.paused &&
		(p.holdUntil == 0 || n.hooks.Now() >= p.holdUntil)
}

// deliver hands a segment to its destination, or stalls it. Callers hold
// mu, on the delivering goroutine.
func (n *Net) deliver(p *pipe, s segment) {
	ev := Event{Kind: segNames[s.kind], Node: p.from.name, Peer: p.to.name, Detail: p.name}
	if s.kind == segData {
		ev.Detail = fmt.Sprintf("%s %d bytes", p.name, len(s.data))
		ev.Digest = sim.DigestBytes(s.data)
	}
	if p.broken && s.kind != segRst {
		ev.Kind = "drop " + ev.Kind
		n.hooks.Event(ev)
		return
	}
	if len(p.stalled) > 0 || !n.deliverable(p) {
		n.stall(p, s, ev)
		return
	}
	if s.kind == segData {
		v := n.reply(p)
		switch {
		case v.Do == Stall:
			n.stall(p, s, ev)
			return
		case v.Do == Lose:
			ev.Kind, ev.Detail = "lose "+ev.Kind, ev.Detail+": "+v.Why
			n.hooks.Event(ev)
			n.breakConn(p)
			return
		case n.lost(p):
			ev.Kind, ev.Detail = "lose "+ev.Kind, ev.Detail+": link loss"
			n.hooks.Event(ev)
			n.breakConn(p)
			return
		}
	}
	n.hooks.Event(ev)
	if s.kind == segSyn {
		n.accept(p)
		return
	}
	e := p.dst
	if e == nil || e.life.dead || e.closed {
		if s.kind == segData || s.kind == segSynAck {
			n.send(p.rev, segment{kind: segRst}) // nobody there: answer with a reset
		}
		return
	}
	switch s.kind {
	case segSynAck:
		e.established = true
	case segRefused:
		e.refused = true
	case segData:
		e.buf = append(e.buf, s.data...)
		p.data++
	case segFin:
		e.eof = true
	case segRst:
		e.reset = true
	}
	e.ping()
}

// reply asks the hooks about a data segment on p when it is a reply: from
// the accepting end, once the dialling end's bytes reached it. Callers
// hold mu, on the delivering goroutine.
func (n *Net) reply(p *pipe) Verdict {
	if p.listen != "" || p.rev.data == 0 {
		return Verdict{} // a request, or bytes before any request
	}
	v := n.hooks.Reply(Reply{From: p.from, To: p.to, FromLife: p.src.life, ToLife: p.dst.life, ToClosed: p.dst.closed})
	if v.Do == Stall && v.HoldUntil > 0 {
		p.holdUntil = v.HoldUntil
	}
	return v
}

// stall holds a segment on its pipe, behind any already held, until
// Release finds the pipe deliverable. Callers hold mu.
func (n *Net) stall(p *pipe, s segment, ev Event) {
	p.stalled = append(p.stalled, s)
	if len(p.stalled) == 1 {
		n.pipes = append(n.pipes, p)
	}
	ev.Kind = "stall " + ev.Kind
	n.hooks.Event(ev)
}

// lost draws whether a data segment is lost on p's link, from p's own
// random stream (drawn only while the link is lossy). Callers hold mu.
func (n *Net) lost(p *pipe) bool {
	loss := n.linkLoss(p)
	if loss <= 0 {
		return false
	}
	if p.lossRnd == nil {
		p.lossRnd = rand.New(rand.NewPCG(Mix(n.seed, p.name, 5), Mix(n.seed, p.name, 6)))
	}
	return p.lossRnd.Float64() < loss
}

// breakConn resets p's connection after one of p's segments was lost: p's
// later segments are dropped, its receiving endpoint reads a reset now
// (after the bytes it already received), and a reset travels back to p's
// sender behind what is already in flight to it. Callers hold mu.
func (n *Net) breakConn(p *pipe) {
	p.broken = true
	if e := p.dst; e != nil {
		e.reset = true
		e.ping()
	}
	n.send(p.rev, segment{kind: segRst})
}

// accept handles a connect request at its destination. Callers hold mu.
func (n *Net) accept(p *pipe) {
	l := n.listeners[p.listen]
	if l == nil || l.closed || l.life.dead {
		n.send(p.rev, segment{kind: segRefused})
		return
	}
	e := &endpoint{net: n, life: l.life, local: l.addr, remote: p.src.local, in: p, out: p.rev,
		established: true}
	p.dst, p.rev.src = e, e
	l.life.endpoints = append(l.life.endpoints, e)
	l.backlog = append(l.backlog, e)
	l.ping()
	n.send(p.rev, segment{kind: segSynAck})
}
