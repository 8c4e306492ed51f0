package lease_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/lease"
)

// belief is one interval in which a holder believed it held the lease.
type belief struct {
	node       lease.Addr
	token      uint64
	start, end time.Duration // end is the deadline while the interval is open
	open       bool
}

// beliefTracker rebuilds belief intervals from observer events. All nodes
// share one clock in leasetest, so local readings are true time.
type beliefTracker struct {
	intervals []*belief
	current   map[lease.Addr]*belief
}

func (b *beliefTracker) Observe(ev lease.Event) {
	cur := b.current[ev.Node]
	switch ev.Kind {
	case lease.EventGrant:
		b.close(ev.Node, ev.Local)
		nb := &belief{node: ev.Node, token: ev.Token, start: ev.Local, end: ev.Deadline, open: true}
		b.intervals = append(b.intervals, nb)
		b.current[ev.Node] = nb
	case lease.EventRenew:
		if cur != nil && cur.token == ev.Token {
			cur.end = max(cur.end, ev.Deadline)
		}
	case lease.EventLost, lease.EventFenced, lease.EventRelease:
		if cur != nil && cur.token == ev.Token {
			b.close(ev.Node, ev.Local)
		}
	}
}

// close ends the node's open interval at now, or at its deadline if earlier.
func (b *beliefTracker) close(node lease.Addr, now time.Duration) {
	if cur := b.current[node]; cur != nil {
		cur.end = min(cur.end, now)
		cur.open = false
		delete(b.current, node)
	}
}

// overlap returns a description of two holders' overlapping beliefs, if any.
func (b *beliefTracker) overlap() string {
	for i, x := range b.intervals {
		for _, y := range b.intervals[i+1:] {
			if x.node != y.node && x.start < x.end && y.start < y.end && x.start < y.end && y.start < x.end {
				return fmt.Sprintf("%+v overlaps %+v", *x, *y)
			}
		}
	}
	return ""
}

// chaos is a world with one contended resource and a faulty network.
type chaos struct {
	f        *fixture
	tracker  *beliefTracker
	holders  []lease.Addr
	live     map[lease.Addr]lease.Holder
	paused   map[lease.Addr]bool
	wants    map[lease.Addr]bool // the holder's session is acquiring or holding
	rng      *rand.Rand
	dropPct  int
	dupPct   int
	delayPct int
	delayed  []envelope
}

type envelope struct {
	from, to lease.Addr
	m        lease.Message
}

func newChaos(t *rapid.T) *chaos {
	c := &chaos{
		tracker: &beliefTracker{current: map[lease.Addr]*belief{}},
		holders: []lease.Addr{"h1", "h2", "h3"},
		live:    map[lease.Addr]lease.Holder{},
		paused:  map[lease.Addr]bool{},
		wants:   map[lease.Addr]bool{},
		rng:     rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1)),
	}
	c.f = newFixture(t, testConfig())
	c.f.w.Intercept = c.intercept
	for _, h := range c.holders {
		c.boot(h)
	}
	return c
}

// boot starts a holder incarnation that wants the resource.
func (c *chaos) boot(addr lease.Addr) {
	env := c.f.w.Env(addr, 1)
	env.Observer = c.tracker
	h, err := lease.NewHolder(env, c.f.cfg, grantorAddr, resourceAddr)
	if err != nil {
		panic(err)
	}
	c.f.w.Register(addr, h)
	c.live[addr] = h
	c.wants[addr] = true
	h.Acquire("r", lease.AcquireOptions{})
}

func (c *chaos) intercept(from, to lease.Addr, m lease.Message) bool {
	switch p := c.rng.IntN(100); {
	case p < c.dropPct:
		return false
	case p < c.dropPct+c.delayPct:
		c.delayed = append(c.delayed, envelope{from, to, m})
		return false
	case p < c.dropPct+c.delayPct+c.dupPct:
		c.delayed = append(c.delayed, envelope{from, to, m})
	}
	return true
}

func (c *chaos) Advance(t *rapid.T) {
	d := rapid.SampledFrom([]time.Duration{time.Millisecond, 300 * time.Millisecond, 2 * time.Second, 7 * time.Second}).Draw(t, "d")
	c.f.w.Advance(d)
}

func (c *chaos) Network(t *rapid.T) {
	c.dropPct = rapid.IntRange(0, 50).Draw(t, "drop%")
	c.delayPct = rapid.IntRange(0, 30).Draw(t, "delay%")
	c.dupPct = rapid.IntRange(0, 20).Draw(t, "dup%")
}

func (c *chaos) DeliverDelayed(t *rapid.T) {
	batch := c.delayed
	c.delayed = nil
	c.rng.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
	for _, e := range batch {
		c.f.w.Send(e.from, e.to, e.m)
	}
	c.f.w.Settle()
}

func (c *chaos) Pause(t *rapid.T) {
	h := rapid.SampledFrom(c.holders).Draw(t, "holder")
	if c.paused[h] {
		c.f.w.Resume(h)
	} else {
		c.f.w.Pause(h)
	}
	c.paused[h] = !c.paused[h]
}

// PauseLeader pauses whoever holds the lease now: the classic stop-the-world
// pause of the process that thinks it is in charge.
func (c *chaos) PauseLeader(t *rapid.T) {
	for _, h := range c.holders {
		if _, ok := c.live[h].Valid("r"); ok && !c.paused[h] {
			c.f.w.Pause(h)
			c.paused[h] = true
			return
		}
	}
}

func (c *chaos) CrashHolder(t *rapid.T) {
	h := rapid.SampledFrom(c.holders).Draw(t, "holder")
	c.f.w.Crash(h)
	c.paused[h] = false
	c.tracker.close(h, c.f.w.Now())
	c.boot(h)
}

func (c *chaos) CrashGrantor(t *rapid.T) {
	c.f.restartGrantor()
}

func (c *chaos) ReleaseReacquire(t *rapid.T) {
	h := rapid.SampledFrom(c.holders).Draw(t, "holder")
	if c.paused[h] {
		return // a paused node does nothing
	}
	c.live[h].Release("r")
	c.wants[h] = rapid.Bool().Draw(t, "reacquire")
	if c.wants[h] {
		c.live[h].Acquire("r", lease.AcquireOptions{})
	}
}

func (c *chaos) Write(t *rapid.T) {
	h := rapid.SampledFrom(c.holders).Draw(t, "holder")
	if !c.paused[h] {
		c.live[h].Write("r", "k", []byte(h), nil)
	}
}

func (c *chaos) Check(t *rapid.T) {
	if o := c.tracker.overlap(); o != "" {
		t.Fatalf("exclusivity violated: %s", o)
	}
}

// TestExclusivityUnderFaults: whatever the network, pauses and crashes do,
// two holders never believe they hold the lease at the same time (all clocks
// here run at the same rate, well within rho). Once the faults stop, a holder
// that wants the lease gets it (liveness).
func TestExclusivityUnderFaults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newChaos(t)
		t.Repeat(rapid.StateMachineActions(c))
		c.heal()
		c.f.w.Advance(time.Minute)
		c.Check(t)
		var holding, wanting []lease.Addr
		for _, h := range c.holders {
			if _, ok := c.live[h].Valid("r"); ok {
				holding = append(holding, h)
			}
			if c.wants[h] {
				wanting = append(wanting, h)
			}
		}
		if len(holding) > 1 || (len(wanting) > 0 && len(holding) == 0) {
			t.Fatalf("after healing, %v hold the lease and %v want it", holding, wanting)
		}
	})
}

// heal ends every fault: the network is clean and no node is paused.
func (c *chaos) heal() {
	c.f.w.Intercept = nil
	for _, h := range c.holders {
		if c.paused[h] {
			c.f.w.Resume(h)
			c.paused[h] = false
		}
	}
}
