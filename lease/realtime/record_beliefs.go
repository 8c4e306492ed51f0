package realtime

import (
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// beliefs turns holders' lease events into belief intervals in true time,
// as the simulator's belief tracker does: a belief ends at the earliest of
// the holder's own deadline (mapped to true time through its clock), a
// release, a loss, a fence or a crash; actions under a token stretch its
// belief to the instant they were taken. Guarded by Recorder.mu.
type beliefs struct {
	list []history.BeliefInterval
	open []openBelief
}

type openBelief struct {
	holder, resource string
	index            int          // into list
	deadline         history.Time // the holder's deadline in true time
}

// recordingObserver feeds a node's lease events to the recorder, then to
// the node's own observer.
type recordingObserver struct {
	r     *Recorder
	self  lease.Addr
	clock *clock // the node's clock: its readings map to true time
	next  lease.Observer
}

// Observe runs on the node's loop.
func (o recordingObserver) Observe(ev lease.Event) {
	o.r.observe(o.self, o.r.since(o.clock.start.Add(ev.Deadline)), ev)
	if o.next != nil {
		o.next.Observe(ev)
	}
}

func (r *Recorder) observe(self lease.Addr, deadline history.Time, ev lease.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now, b, holder := r.now(), &r.beliefs, string(self)
	switch ev.Kind {
	case lease.EventGrant:
		b.grant(holder, ev.Resource, ev.Token, now, deadline, ev.Deadline)
	case lease.EventRenew:
		if i := b.find(holder, ev.Resource); i >= 0 && b.list[b.open[i].index].Token == ev.Token {
			b.open[i].deadline = max(b.open[i].deadline, deadline)
			b.list[b.open[i].index].LocalDeadline = max(b.list[b.open[i].index].LocalDeadline, ev.Deadline)
		}
	case lease.EventLost:
		b.end(holder, ev.Resource, ev.Token, history.EndLost, now)
	case lease.EventFenced:
		b.end(holder, ev.Resource, ev.Token, history.EndFenced, now)
	case lease.EventRelease:
		b.end(holder, ev.Resource, ev.Token, history.EndRelease, now)
	}
}

// find returns the open belief of holder in resource.
func (b *beliefs) find(holder, resource string) int {
	for i, ob := range b.open {
		if ob.holder == holder && ob.resource == resource {
			return i
		}
	}
	return -1
}

func (b *beliefs) grant(holder, resource string, token uint64, now, deadline history.Time, local time.Duration) {
	if i := b.find(holder, resource); i >= 0 {
		if bl := &b.list[b.open[i].index]; bl.Token == token {
			b.open[i].deadline = max(b.open[i].deadline, deadline)
			bl.LocalDeadline = max(bl.LocalDeadline, local)
			return
		}
		b.close(i, history.EndLost, now)
	}
	b.list = append(b.list, history.BeliefInterval{Holder: holder, Resource: resource, Token: token,
		Start: now, End: history.Never, LastAct: history.Unknown, LocalDeadline: local})
	b.open = append(b.open, openBelief{holder: holder, resource: resource, index: len(b.list) - 1, deadline: deadline})
}

func (b *beliefs) end(holder, resource string, token uint64, reason history.EndReason, now history.Time) {
	if i := b.find(holder, resource); i >= 0 && b.list[b.open[i].index].Token == token {
		b.close(i, reason, now)
	}
}

// close ends open belief i at now, or at its deadline if that came first.
func (b *beliefs) close(i int, reason history.EndReason, now history.Time) {
	ob := b.open[i]
	b.list[ob.index] = closed(b.list[ob.index], ob.deadline, reason, now)
	b.open = append(b.open[:i], b.open[i+1:]...)
}

// closed returns belief bl ended at now for reason, or at deadline if it
// came first, never before its start or its last action.
func closed(bl history.BeliefInterval, deadline history.Time, reason history.EndReason, now history.Time) history.BeliefInterval {
	bl.End, bl.Reason = now, reason
	if deadline < bl.End {
		bl.End, bl.Reason = deadline, history.EndDeadline
	}
	bl.End = max(bl.End, bl.Start, bl.LastAct)
	return bl
}

// crash ends every open belief of holder.
func (b *beliefs) crash(holder string, now history.Time) {
	for i := len(b.open) - 1; i >= 0; i-- {
		if b.open[i].holder == holder {
			b.close(i, history.EndCrash, now)
		}
	}
}

// act stretches the latest belief in (holder, resource, token) to now, or
// infers a belief of one instant when the holder was never seen to get
// the token.
func (b *beliefs) act(holder, resource string, token uint64, now history.Time) {
	for i := len(b.list) - 1; i >= 0; i-- {
		if bl := &b.list[i]; bl.Holder == holder && bl.Resource == resource && bl.Token == token {
			bl.LastAct = now
			if bl.End != history.Never && bl.End < now {
				bl.End = now
			}
			return
		}
	}
	b.list = append(b.list, history.BeliefInterval{Holder: holder, Resource: resource, Token: token,
		Start: now, End: now, Reason: history.EndLost, LastAct: now, Inferred: true})
}

// snapshot returns the beliefs with those still open ended at now (or at
// their deadline).
func (b *beliefs) snapshot(now history.Time) []history.BeliefInterval {
	out := make([]history.BeliefInterval, len(b.list))
	copy(out, b.list)
	for _, ob := range b.open {
		out[ob.index] = closed(out[ob.index], ob.deadline, history.EndRun, now)
	}
	return out
}
