package workload

import (
	"cmp"
	"slices"
	"time"

	"github.com/leasesim/leasesim/internal/dist"
	"github.com/leasesim/leasesim/lease"
)

// extractor is FromEvents's state while it reads the log: one record per
// holder node, per granted resource (a task) and per hold that has not
// ended, and histograms for the samples.
type extractor struct {
	opts    FromEventsOptions
	sum     Summary
	t0      time.Time               // wall clock of the first event
	last    time.Time               // latest wall clock seen
	nodes   map[lease.Addr]*nodeRec // looked up, never iterated
	byRes   map[string]*taskRec     // looked up, never iterated
	tasks   []*taskRec              // in order of first grant
	holds   map[holdKey]*holdRec    // holds not ended on the holder's side; looked up, never iterated
	open    []*holdRec              // the same holds, in order of grant, for iteration
	latency dist.Histogram          // one-way latency samples
	renews  dist.Histogram          // gaps between two successful renewals of one hold
	pauses  dist.Histogram          // pause lengths found
	downs   dist.Histogram          // crash-to-restart times
	gaps    []silence               // silences that may be pauses
	crashes []crashRec
}

// nodeRec is one holder node.
type nodeRec struct {
	name    lease.Addr
	worker  int        // its worker number, from 1
	waiting []*holdRec // holds whose next event on this node is not known yet
}

type holdKey struct {
	resource string
	token    uint64
}

// holdRec is one grant to one holder, until the holder ends it.
type holdRec struct {
	key                    holdKey
	node                   *nodeRec
	task                   *taskRec
	grant, last, lastRenew time.Duration // local times: the grant, the last event, the last grant or renewal
	lastCkpt               time.Duration // local time of the last accepted checkpoint; -1: none
	renewWall              time.Time     // wall clock of the last grant or renewal
	failed                 bool          // a renewal failed since the last renewal
	abandoned              bool          // the grantor expired it, or granted the resource again
	next                   time.Time     // wall clock of the node's first event after this hold's last one
	ended                  bool
	handed                 bool // its checkpointed progress has been counted as handed on
}

// taskRec is one granted resource.
type taskRec struct {
	id          string
	arrival     time.Time
	checkpoints int
	saved       time.Duration // work handed on by holds that ended without releasing
	work        time.Duration // set when released
	done        bool
}

// silence is a gap in one hold's events that may be a pause.
type silence struct {
	node     *nodeRec
	from, to time.Duration // local times
	gap      time.Duration
}

// crashRec is an observed crash.
type crashRec struct {
	worker   int
	at, back time.Time // back is zero if the worker never returned
}

func newExtractor(opts FromEventsOptions) *extractor {
	return &extractor{opts: opts, nodes: make(map[lease.Addr]*nodeRec), byRes: make(map[string]*taskRec),
		holds: make(map[holdKey]*holdRec)}
}

// observe takes in one event.
func (x *extractor) observe(ev lease.Event) {
	if x.sum.Events == 1 {
		x.t0 = ev.Wall
	}
	if ev.Wall.After(x.last) {
		x.last = ev.Wall
	}
	key := holdKey{ev.Resource, ev.Token}
	switch ev.Kind {
	case lease.EventExpired, lease.EventRevoked:
		if h := x.holds[key]; h != nil {
			h.abandoned = true
		}
		return
	case lease.EventNone:
		return
	}
	node := x.node(ev.Node)
	var h *holdRec
	if ev.Kind == lease.EventGrant {
		h = x.grant(node, key, ev)
	} else {
		h = x.holds[key]
	}
	x.touch(node, h, ev.Wall)
	if h == nil {
		return // an event of a hold whose grant the log does not show
	}
	switch ev.Kind {
	case lease.EventRenew:
		x.sum.Renewals++
		x.quiet(h, ev.Local)
		if !h.failed {
			x.renews.Record(ev.Local - h.lastRenew)
		}
		h.lastRenew, h.renewWall, h.failed = ev.Local, ev.Wall, false
	case lease.EventRenewFailed:
		if ev.Err == lease.ErrTimeout.Error() {
			x.sum.RenewTimeouts++
		}
		h.failed = true
	case lease.EventCheckpoint:
		h.lastCkpt = ev.Local
		if !h.task.done {
			h.task.checkpoints++
		}
		if ev.Duration > 0 {
			x.latency.Record(ev.Duration / 2)
		}
	case lease.EventLost, lease.EventFenced:
		x.quiet(h, ev.Local)
		x.end(h, false, ev.Local)
	case lease.EventRelease:
		x.end(h, true, ev.Local)
	}
	h.last = ev.Local
}

// node returns the record of a holder node, numbering it on first sight.
func (x *extractor) node(name lease.Addr) *nodeRec {
	n := x.nodes[name]
	if n == nil {
		x.sum.Holders = append(x.sum.Holders, string(name))
		n = &nodeRec{name: name, worker: len(x.sum.Holders)}
		x.nodes[name] = n
	}
	return n
}

// grant starts a hold; a hold of the resource under an earlier token that
// its holder has not ended is abandoned.
func (x *extractor) grant(n *nodeRec, key holdKey, ev lease.Event) *holdRec {
	t := x.byRes[key.resource]
	if t == nil {
		t = &taskRec{id: key.resource, arrival: ev.Wall}
		x.byRes[key.resource] = t
		x.tasks = append(x.tasks, t)
	}
	for _, h := range x.open {
		if !h.ended && h.key.resource == key.resource && h.key.token < key.token {
			h.abandoned = true
			h.handOn()
		}
	}
	if old := x.holds[key]; old != nil {
		old.ended = true // a duplicated grant: start over
	}
	h := &holdRec{key: key, node: n, task: t, grant: ev.Local, last: ev.Local, lastRenew: ev.Local,
		lastCkpt: -1, renewWall: ev.Wall}
	x.holds[key] = h
	x.open = append(x.open, h)
	x.compact()
	return h
}

// touch records that node n emitted an event at wall clock at, about hold
// h (nil if unknown): every other hold waiting to learn the node's next
// event learns it, and h waits anew.
func (x *extractor) touch(n *nodeRec, h *holdRec, at time.Time) {
	for _, w := range n.waiting {
		if w != h && w.next.IsZero() {
			w.next = at
		}
	}
	n.waiting = n.waiting[:0]
	if h != nil {
		h.next = time.Time{}
		n.waiting = append(n.waiting, h)
	}
}

// quiet notes the silence of h up to local time now, if it may be a pause:
// a live holder renews on time or logs its failures, so a long silence of
// a hold means its node was frozen.
// While the renew interval is not known yet, every silence is kept; once
// 64 renewals have been seen, only those beyond PauseFactor × their
// median are.
func (x *extractor) quiet(h *holdRec, now time.Duration) {
	gap := now - h.last
	if gap <= 0 {
		return
	}
	ri := x.opts.RenewInterval
	if ri == 0 && x.renews.Count() >= 64 {
		ri = x.renews.Quantile(0.5)
	}
	if ri == 0 || float64(gap) > x.opts.PauseFactor*float64(ri) {
		x.gaps = append(x.gaps, silence{node: h.node, from: h.last, to: now, gap: gap})
	}
}

// end ends a hold on the holder's side: a release completes its task (the
// first one does); a loss hands on the work up to its last checkpoint.
func (x *extractor) end(h *holdRec, release bool, now time.Duration) {
	h.ended = true
	delete(x.holds, h.key)
	t := h.task
	switch {
	case t.done:
	case release:
		t.done = true
		t.work = t.saved + (now - h.grant)
		x.sum.Completed++
	default:
		h.handOn()
	}
}

// handOn counts the progress h checkpointed, once, as work handed on to
// the next holder of its task.
func (h *holdRec) handOn() {
	if !h.handed && h.lastCkpt >= 0 && !h.task.done {
		h.task.saved += h.lastCkpt - h.grant
	}
	h.handed = true
}

// compact drops ended holds from the open list once they are most of it.
func (x *extractor) compact() {
	if len(x.open) > 64 && len(x.holds) < len(x.open)/2 {
		x.open = slices.DeleteFunc(x.open, func(h *holdRec) bool { return h.ended })
	}
}

// finish turns what was collected into estimates: the renew interval, the
// pauses, the crashes and the work of unfinished tasks.
func (x *extractor) finish() {
	x.open = slices.DeleteFunc(x.open, func(h *holdRec) bool { return h.ended })
	ri := x.opts.RenewInterval
	if ri == 0 {
		ri, x.sum.Estimated = x.renews.Quantile(0.5), true
	}
	x.sum.RenewInterval = ri
	x.sum.Tasks = len(x.tasks)
	x.findPauses(ri)
	x.findCrashes(ri)
	for _, h := range x.open {
		if t := h.task; !t.done {
			t.work = max(t.work, t.saved+(h.last-h.grant))
		}
	}
}

// findPauses merges the silences beyond PauseFactor renew intervals per
// node into pauses.
func (x *extractor) findPauses(ri time.Duration) {
	if ri <= 0 {
		return
	}
	gaps := slices.DeleteFunc(x.gaps, func(s silence) bool { return float64(s.gap) <= x.opts.PauseFactor*float64(ri) })
	slices.SortStableFunc(gaps, func(a, b silence) int {
		return cmp.Or(cmp.Compare(a.node.worker, b.node.worker), cmp.Compare(a.from, b.from))
	})
	for i := 0; i < len(gaps); {
		cur, length := gaps[i], gaps[i].gap-ri/2
		j := i + 1
		for ; j < len(gaps) && gaps[j].node == cur.node && gaps[j].from <= cur.to; j++ {
			cur.to = max(cur.to, gaps[j].to)
			length = max(length, gaps[j].gap-ri/2)
		}
		x.pauses.Record(max(length, time.Millisecond))
		i = j
	}
}

// findCrashes turns the abandoned holds into crashes: per node, holds
// abandoned before the same next event are one crash, at the latest of
// their last renewals, with the restart at that next event.
func (x *extractor) findCrashes(ri time.Duration) {
	var abandoned []*holdRec
	for _, h := range x.open {
		if h.abandoned {
			abandoned = append(abandoned, h)
		}
	}
	slices.SortStableFunc(abandoned, func(a, b *holdRec) int {
		return cmp.Or(cmp.Compare(a.node.worker, b.node.worker), a.next.Compare(b.next))
	})
	for i := 0; i < len(abandoned); {
		c := crashRec{worker: abandoned[i].node.worker, at: abandoned[i].renewWall, back: abandoned[i].next}
		j := i + 1
		for ; j < len(abandoned) && abandoned[j].node == abandoned[i].node && abandoned[j].next.Equal(c.back); j++ {
			if abandoned[j].renewWall.After(c.at) {
				c.at = abandoned[j].renewWall
			}
		}
		i = j
		if !c.back.IsZero() && c.back.Sub(c.at) < ri {
			continue // the node carried on: not a silence, so not a crash
		}
		x.crashes = append(x.crashes, c)
		x.sum.Crashes++
		if !c.back.IsZero() {
			x.sum.Restarts++
			x.downs.Record(c.back.Sub(c.at))
		}
	}
	slices.SortStableFunc(x.crashes, func(a, b crashRec) int { return a.at.Compare(b.at) })
}

// event returns the task as a workload event (see FromEvents).
func (t *taskRec) event(t0 time.Time, unitsPerCheckpoint int) Event {
	units := min(max(t.checkpoints, 1)*unitsPerCheckpoint, MaxUnits)
	unit := max(truncMicro(t.work/time.Duration(units)), time.Microsecond)
	unit = min(unit, MaxDuration/time.Duration(units))
	return Event{Type: TypeTask, At: truncMicro(t.arrival.Sub(t0)), ID: t.id, Units: units, UnitTime: unit}
}
