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
	keys  []string // the keys the lease covers (LockLoad.Keys)
	token uint64   // the grant being worked under; 0 when not holding
	seq   int      // writes attempted, for distinct values
	visit int      // keys visited under token, which picks the next key
	// The write loop's and the release's timers, each callback bound once
	// per incarnation (tokenTimers), and the write's completion for token
	// (behind its harness boundary), made once per grant rather than once
	// per write.
	loops, releases tokenTimers
	written         guardedDone
	contendTimer    func() // contend, bound once
	// acquire holds the Acquire callbacks, behind their boundaries, made
	// once per incarnation rather than once per Acquire.
	acquire guardedAcquire
	// scratch holds the value being written; the holder copies it
	// (lease.Holder.Write), so one buffer serves every write.
	scratch []byte
}

func startContender(n *sim.Node, h lease.Holder, rec *recorder, load LockLoad, index int) {
	c := &contender{n: n, h: h, rec: rec, load: load, res: load.resource(), keys: load.keyNames()}
	c.acquire = guardAcquire(lease.AcquireOptions{OnGrant: c.granted, OnLost: c.lost})
	c.contendTimer = c.contend
	start := load.Start + time.Duration(index)*load.Stagger
	if n.Incarnation() > 0 {
		start = 0 // a restarted holder contends at once
	}
	n.SetTimer(start, c.contendTimer)
}

func (c *contender) contend() {
	holderAcquire(c.h, c.res, c.acquire)
}

func (c *contender) granted(g lease.Grant) {
	if c.token == g.Token {
		return
	}
	c.token = g.Token
	c.visit = 0
	if c.loops.fire == nil { // bound at the first grant: an incarnation never granted binds neither
		c.loops = tokenTimers{delay: c.load.WriteEvery, fire: func() { c.writeLoop(c.loops.next()) }}
		c.releases = tokenTimers{delay: c.load.Hold, fire: func() { c.release(c.releases.next()) }}
	}
	token := g.Token
	// One closure behind its boundary, not guardDone's wrapper around a second.
	c.written = func(err error) { harnessCall(func() { c.onWritten(token, err) }) }
	c.writeLoop(g.Token)
	if c.load.Hold > 0 {
		c.releases.arm(c.n, g.Token)
	}
}

func (c *contender) lost(_ string, token uint64, _ error) {
	if token == c.token {
		c.token = 0
	}
}

// writeLoop visits the next key under token every WriteEvery while the
// lease is valid: it writes it, or with ReadBack reads it first.
func (c *contender) writeLoop(token uint64) {
	if c.load.WriteEvery <= 0 || c.token != token {
		return
	}
	if g, ok := c.h.Valid(c.res); ok && g.Token == token {
		c.rec.act(c.n, c.res, token)
		key := c.keys[c.visit%len(c.keys)]
		c.visit++
		if c.load.ReadBack {
			holderRead(c.h, c.res, key, guardRead(func(_ []byte, _ uint64, err error) { c.onRead(token, key, err) }))
		} else {
			c.write(token, key)
		}
	}
	c.loops.arm(c.n, token)
}

// write writes key under token; the caller has recorded the action.
func (c *contender) write(token uint64, key string) {
	c.seq++
	holderWrite(c.h, c.res, key, c.value(token), c.written)
}

// onRead writes key, just read back under token, if the holder still
// holds the lease under it. A key whose read failed waits for its next
// visit.
func (c *contender) onRead(token uint64, key string, err error) {
	if err != nil {
		if errors.Is(err, lease.ErrFenced) && c.token == token {
			c.token = 0
		}
		return
	}
	if c.token != token {
		return
	}
	if g, ok := c.h.Valid(c.res); ok && g.Token == token {
		c.rec.act(c.n, c.res, token)
		c.write(token, key)
	}
}

// value returns a distinct value to write under token: "node/token/seq".
// It is the contender's scratch buffer, valid until the next call: the
// holder does not keep it once Write returns (lease.Holder.Write).
func (c *contender) value(token uint64) []byte {
	v := append(append(c.scratch[:0], c.n.Name()...), '/')
	v = append(strconv.AppendUint(v, token, 10), '/')
	c.scratch = strconv.AppendInt(v, int64(c.seq), 10)
	return c.scratch
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
	c.n.SetTimer(c.load.Idle, c.contendTimer)
}
