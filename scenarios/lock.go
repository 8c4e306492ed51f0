package scenarios

import (
	"errors"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// contender is a holder that contends for one resource and, while it holds
// it, writes to the fenced store. It lives for one incarnation of its node.
type contender struct {
	n     *sim.Node
	h     lease.Holder
	rec   *recorder
	load  LockLoad
	res   string
	token uint64 // the grant being worked under; 0 when not holding
	seq   int    // writes attempted, for distinct values
	// The write loop's timer callback and the write's completion for
	// token, made once per grant rather than once per write.
	loop    func()
	written func(error)
}

func startContender(n *sim.Node, h lease.Holder, rec *recorder, load LockLoad, index int) {
	c := &contender{n: n, h: h, rec: rec, load: load, res: load.resource()}
	start := load.Start + time.Duration(index)*load.Stagger
	if n.Incarnation() > 0 {
		start = 0 // a restarted holder contends at once
	}
	n.SetTimer(start, c.contend)
}

func (c *contender) contend() {
	c.h.Acquire(c.res, lease.AcquireOptions{OnGrant: c.granted, OnLost: c.lost})
}

func (c *contender) granted(g lease.Grant) {
	if c.token == g.Token {
		return
	}
	c.token = g.Token
	token := g.Token
	c.loop = func() { c.writeLoop(token) }
	c.written = func(err error) { c.onWritten(token, err) }
	c.writeLoop(g.Token)
	if c.load.Hold > 0 {
		c.n.SetTimer(c.load.Hold, func() { c.release(g.Token) })
	}
}

func (c *contender) lost(_ string, token uint64, _ error) {
	if token == c.token {
		c.token = 0
	}
}

// writeLoop writes under token every WriteEvery while the lease is valid.
func (c *contender) writeLoop(token uint64) {
	if c.load.WriteEvery <= 0 || c.token != token {
		return
	}
	if g, ok := c.h.Valid(c.res); ok && g.Token == token {
		c.rec.act(c.n, c.res, token)
		c.seq++
		c.h.Write(c.res, "x", c.value(token), c.written)
	}
	c.n.SetTimer(c.load.WriteEvery, c.loop)
}

// value returns a distinct value to write under token: "node/token/seq".
// It is a new slice each time, since the message carries it away.
func (c *contender) value(token uint64) []byte {
	name := c.n.Name()
	v := make([]byte, 0, len(name)+42)
	v = append(append(v, name...), '/')
	v = append(strconv.AppendUint(v, token, 10), '/')
	return strconv.AppendInt(v, int64(c.seq), 10)
}

// onWritten stops acting under token once a write under it was fenced.
func (c *contender) onWritten(token uint64, err error) {
	if errors.Is(err, lease.ErrFenced) && c.token == token {
		c.token = 0
	}
}

func (c *contender) release(token uint64) {
	if c.token != token {
		return
	}
	c.token = 0
	c.h.Release(c.res)
	c.n.SetTimer(c.load.Idle, c.contend)
}
