package checker

import (
	"cmp"
	"slices"

	"github.com/leasesim/leasesim/history"
)

// Behaviour is a rare path through the protocol or the specification that a
// sweep should reach, as FoundationDB's simulator counts its TEST points: a
// property that held only because its rare path was never taken proves
// little. Coverage counts, for one run, how often each was reached; a sweep
// adds the counts up and flags every behaviour no run reached.
type Behaviour struct {
	Name string // kebab-case, stable: sweep summaries key on it
	Doc  string // one line: what happened
	// Needs says what the behaviour exists only with: "" for any
	// implementation, NeedsLeaseStore for leasesim's protocol (its
	// operations are what is counted), NeedsCheckpoints for an
	// implementation with checkpointed tasks.
	Needs string
}

// What a behaviour may need (Behaviour.Needs).
const (
	NeedsLeaseStore  = "lease-store"
	NeedsCheckpoints = "checkpoints"
)

// Applies reports whether b can happen for an implementation judged by
// spec (a history's spec name, "lease-store" or a variant of it for
// leasesim's protocol) that does or does not checkpoint: one that cannot is
// not applicable, rather than never reached.
func (b Behaviour) Applies(spec string, checkpoints bool) bool {
	switch b.Needs {
	case NeedsLeaseStore:
		return leaseStoreSpec(spec)
	case NeedsCheckpoints:
		return checkpoints
	}
	return true
}

// Behaviours returns every behaviour Coverage counts, in a fixed order.
func Behaviours() []Behaviour { return behaviours[:] }

// The behaviours, by index into a Coverage.
const (
	bAcquireGranted = iota
	bAcquireReconfirmed
	bAcquireHeld
	bAcquireGrace
	bRenewOK
	bRenewRefused
	bReleaseOK
	bReleaseRefused
	bCheckpointAccepted
	bCheckpointFenced
	bWriteAccepted
	bWriteFenced
	bReplyLost
	bReplyAfterDeadline
	bDuplicateProcessed
	bEarlierIncarnation
	bReleaseRacesGrant
	bBeliefDeadline
	bBeliefLost
	bBeliefFenced
	bBeliefCrash
	bBeliefRelease
	bExpiryDuringPause
	bHandoff
	bUnitReexecuted
	bDuplicateEffect
	bGrantorCrashLive
	bAssumptionExceeded
	bBeliefThroughFault
	bGrantWhilePaused
	bHandsChangedMidWrite
	bStaleWriteUntouchedKey
	bReadAfterFencedWrite
	behaviourCount
)

var behaviours = [behaviourCount]Behaviour{
	bAcquireGranted:       {"acquire-granted", "an acquire was granted a new token", NeedsLeaseStore},
	bAcquireReconfirmed:   {"acquire-reconfirmed", "an acquire re-confirmed the holder's own live lease", NeedsLeaseStore},
	bAcquireHeld:          {"acquire-refused-held", "an acquire was refused because another holder held the lease", NeedsLeaseStore},
	bAcquireGrace:         {"acquire-refused-grace", "an acquire was refused during a restarted grantor's grace period", NeedsLeaseStore},
	bRenewOK:              {"renew-ok", "a renewal succeeded", NeedsLeaseStore},
	bRenewRefused:         {"renew-refused", "a renewal was refused (the lease had expired or moved)", NeedsLeaseStore},
	bReleaseOK:            {"release-ok", "a release ended a lease at the grantor", NeedsLeaseStore},
	bReleaseRefused:       {"release-refused", "a release was refused (stale, or overtaken by a later request)", NeedsLeaseStore},
	bCheckpointAccepted:   {"checkpoint-accepted", "a checkpoint was accepted under the current token", NeedsCheckpoints},
	bCheckpointFenced:     {"checkpoint-fenced", "a checkpoint under a stale token was refused", NeedsCheckpoints},
	bWriteAccepted:        {"write-accepted", "the fenced store accepted a write", ""},
	bWriteFenced:          {"write-fenced", "the fenced store refused a write under a stale token", ""},
	bReplyLost:            {"reply-lost", "a server acted on a request but its reply never reached the client", ""},
	bReplyAfterDeadline:   {"reply-after-deadline", "a grant or renewal reached its holder after the request's TTL had passed", NeedsLeaseStore},
	bDuplicateProcessed:   {"duplicate-processed", "the network duplicated a request and the server processed it twice", ""},
	bEarlierIncarnation:   {"earlier-incarnation", "a request from a holder's earlier incarnation was processed after a later one's", ""},
	bReleaseRacesGrant:    {"release-races-grant", "a release was processed after another holder had been granted the resource", NeedsLeaseStore},
	bBeliefDeadline:       {"belief-ended-deadline", "a holder stopped believing at its own deadline", ""},
	bBeliefLost:           {"belief-ended-lost", "a holder stopped believing because the grantor refused a renewal", ""},
	bBeliefFenced:         {"belief-ended-fenced", "a holder stopped believing because an action under its token was fenced", ""},
	bBeliefCrash:          {"belief-ended-crash", "a holder crashed while it believed it held a lease", ""},
	bBeliefRelease:        {"belief-ended-release", "a holder released a lease it believed it held", ""},
	bExpiryDuringPause:    {"expiry-during-pause", "a holder's lease deadline passed while the holder was paused", ""},
	bHandoff:              {"handoff", "a task moved to another holder with its checkpoint", NeedsCheckpoints},
	bUnitReexecuted:       {"unit-reexecuted", "a unit of work was executed again after a handoff or restart", NeedsCheckpoints},
	bDuplicateEffect:      {"duplicate-effect", "an unfenced side effect happened more than once", NeedsCheckpoints},
	bGrantorCrashLive:     {"grantor-crash-live-lease", "the grantor crashed while a holder believed it held a lease", ""},
	bAssumptionExceeded:   {"drift-beyond-rho", "a clock drifted beyond the bound rho", ""},
	bBeliefThroughFault:   {"belief-through-fault", "a holder kept believing from before a pause or cut that touched it until after it ended", ""},
	bGrantWhilePaused:     {"grant-while-paused", "another holder began to believe while a holder that believed was paused", ""},
	bHandsChangedMidWrite: {"hands-changed-mid-write", "another holder began to believe while a write to the fenced store was in flight", ""},
	bStaleWriteUntouchedKey: {"stale-write-untouched-key", "a write under an earlier token reached the fenced store at a key that no write " +
		"under the resource's latest token had written yet", ""},
	bReadAfterFencedWrite: {"read-after-fenced-write", "a read reached the fenced store at a key whose latest write there was refused", ""},
}

// Coverage is how often one run reached each behaviour, indexed like
// Behaviours().
type Coverage [behaviourCount]uint64

// Reached returns the names of the behaviours with a nonzero count, in
// Behaviours() order.
func (c Coverage) Reached() []string {
	var out []string
	for i, n := range c {
		if n > 0 {
			out = append(out, behaviours[i].Name)
		}
	}
	return out
}

// Counts returns the count of every behaviour by name.
func (c Coverage) Counts() map[string]uint64 {
	m := make(map[string]uint64, len(c))
	for i, n := range c {
		m[behaviours[i].Name] = n
	}
	return m
}

// Cover counts the behaviours a history reached.
func Cover(h *history.History) Coverage { return cover(newAnalysis(h)) }

// cover is Cover on an analysis that the checkers may share (Judge).
func cover(a *analysis) Coverage {
	h := a.h
	var c Coverage
	coverOps(a, &c)
	coverBeliefs(h, &c)
	coverWork(a, &c)
	coverHandoffs(a, &c)
	for _, w := range h.Faults {
		if w.Kind == history.FaultCrash && w.Node() == h.Grantor && believedAt(h, w.Start) {
			c[bGrantorCrashLive]++
		}
	}
	if driftExceeded(h) {
		c[bAssumptionExceeded]++
	}
	return c
}

// coverOps counts what the lease store and the fenced store answered. It
// reads the operations' rows, and an operation itself only when it
// succeeded: most of a contended run's operations are acquires refused.
func coverOps(a *analysis, c *Coverage) {
	h := a.h
	lives := a.lives()
	c[bDuplicateProcessed] += uint64(processedTwice(a.rows(), lives))
	var latestInc []uint64                   // by client: the highest incarnation the grantor processed so far
	grantedAt := make(map[string]freshGrant) // resource -> latest fresh grant
	grants := newGrantTracker()
	keys := newKeyTracker()
	var op history.Operation
	for i, r := range a.inProcessedOrder() {
		if r.grantor() {
			l := lives[r.life]
			for int(l.client) >= len(latestInc) {
				latestInc = append(latestInc, 0)
			}
			if l.incarnation < latestInc[l.client] {
				c[bEarlierIncarnation]++
			}
			latestInc[l.client] = max(latestInc[l.client], l.incarnation)
		}
		if !r.returned() {
			c[bReplyLost]++
		}
		ok := r.err == errNone
		switch r.kind {
		case opAcquire:
			switch r.err {
			case errNone:
				h.LoadOp(i, &op)
				coverGranted(&op, c, grants, grantedAt)
			case errIsHeld:
				c[bAcquireHeld]++
			case errIsGrace:
				c[bAcquireGrace]++
			}
		case opRenew:
			c[pick(ok, bRenewOK, bRenewRefused)]++
			if ok {
				h.LoadOp(i, &op)
				lateReply(&op, c)
			}
		case opRelease:
			c[pick(ok, bReleaseOK, bReleaseRefused)]++
			h.LoadOp(i, &op)
			if g, found := grantedAt[op.Input.Resource]; found && g.client != op.Client && g.processed <= op.Processed {
				c[bReleaseRacesGrant]++
			}
		case opCheckpoint:
			c[pick(ok, bCheckpointAccepted, bCheckpointFenced)]++
		case opWrite:
			c[pick(ok, bWriteAccepted, bWriteFenced)]++
			h.LoadOp(i, &op)
			keys.write(&op, c)
		case opRead:
			h.LoadOp(i, &op)
			keys.read(&op, c)
		}
	}
}

// keyTracker follows the keys of each resource of the fenced store, in the
// order the store processed its operations, for the behaviours of a lease
// over several keys, read as well as written.
type keyTracker struct {
	latest  map[string]*latestToken // by resource
	refused map[resourceKey]bool    // the key's latest write was refused; looked up, never iterated
}

// latestToken is the highest token the store accepted on a resource, and
// the keys written under it.
type latestToken struct {
	token uint64
	keys  []string
}

type resourceKey struct{ resource, key string }

func newKeyTracker() keyTracker {
	return keyTracker{latest: make(map[string]*latestToken), refused: make(map[resourceKey]bool)}
}

// write counts a write under an earlier token than the resource's latest,
// at a key the latest token has not written (bStaleWriteUntouchedKey), and
// follows what it wrote. A write counts whether the store accepted it or
// not: a correct store refuses it, one that fences each key on its own
// does not.
func (k keyTracker) write(op *history.Operation, c *Coverage) {
	in := &op.Input
	l := k.latest[in.Resource]
	if l == nil {
		l = &latestToken{}
		k.latest[in.Resource] = l
	}
	accepted := op.Output.Err == ""
	switch {
	case in.Token < l.token && !slices.Contains(l.keys, in.Key):
		c[bStaleWriteUntouchedKey]++
	case !accepted:
	case in.Token > l.token:
		l.token, l.keys = in.Token, append(l.keys[:0], in.Key)
	case in.Token == l.token && !slices.Contains(l.keys, in.Key):
		l.keys = append(l.keys, in.Key)
	}
	k.refused[resourceKey{in.Resource, in.Key}] = !accepted
}

// read counts a read of a key whose latest write was refused.
func (k keyTracker) read(op *history.Operation, c *Coverage) {
	if k.refused[resourceKey{op.Input.Resource, op.Input.Key}] {
		c[bReadAfterFencedWrite]++
	}
}

// freshGrant is who was granted a resource, and when the grantor processed
// the grant: what coverOps keeps of a fresh grant (not the operation,
// which is loaded into a reused variable).
type freshGrant struct {
	client    string
	processed history.Time
}

// coverGranted counts a successful acquire: a new grant or a
// re-confirmation.
func coverGranted(op *history.Operation, c *Coverage, grants grantTracker, grantedAt map[string]freshGrant) {
	kind, _ := grants.observe(op)
	if !kind.isNew() {
		c[bAcquireReconfirmed]++
	} else {
		c[bAcquireGranted]++
		grantedAt[op.Input.Resource] = freshGrant{client: op.Client, processed: op.Processed}
	}
	lateReply(op, c)
}

// lateReply counts a successful grant or renewal that reached its holder
// only after the TTL it asked for had passed since it sent the request.
func lateReply(op *history.Operation, c *Coverage) {
	if op.Output.Err == "" && op.Returned() && op.Output.TTL > 0 && op.Return-op.Call > history.Time(op.Output.TTL) {
		c[bReplyAfterDeadline]++
	}
}

// coverBeliefs counts why beliefs ended, and deadlines passed in a pause.
func coverBeliefs(h *history.History, c *Coverage) {
	var paused nodeWindows // indexed when first needed
	for _, b := range h.Beliefs {
		switch b.Reason {
		case history.EndDeadline:
			c[bBeliefDeadline]++
			if paused == nil {
				paused = indexWindows(h, history.FaultPause)
			}
			if paused.at(b.Holder, b.End) {
				c[bExpiryDuringPause]++
			}
		case history.EndLost:
			if !b.Inferred {
				c[bBeliefLost]++
			}
		case history.EndFenced:
			c[bBeliefFenced]++
		case history.EndCrash:
			c[bBeliefCrash]++
		case history.EndRelease:
			c[bBeliefRelease]++
		}
	}
}

// coverWork counts handoffs, re-executed units and duplicate effects.
func coverWork(a *analysis, c *Coverage) {
	h := a.h
	type taskDone struct {
		units      []bool // by index below maxDenseUnit: executed
		lastWorker string // the worker of its latest unit
	}
	var ids numbering[string] // tasks, into tasks
	var tasks []taskDone
	type unitKey struct {
		task  int32
		index int
	}
	sparse := make(map[unitKey]bool) // units outside the dense range, executed; looked up, never iterated
	for i := range h.Units {
		u := &h.Units[i]
		id, isNew := ids.id(u.Task, strHint(u.Task))
		if isNew {
			tasks = append(tasks, taskDone{})
		}
		t := &tasks[id]
		var again bool
		if 0 <= u.Index && u.Index < maxDenseUnit {
			if u.Index >= len(t.units) {
				t.units = slices.Grow(t.units, u.Index+1-len(t.units))[:u.Index+1]
			}
			again, t.units[u.Index] = t.units[u.Index], true
		} else {
			k := unitKey{id, u.Index}
			again, sparse[k] = sparse[k], true
		}
		if again {
			c[bUnitReexecuted]++
		}
		if !isNew && t.lastWorker != u.Worker {
			c[bHandoff]++
		}
		t.lastWorker = u.Worker
	}
	first := a.firstEffects()
	repeated := make([]bool, len(first)) // by first effect: repeated
	for i, f := range first {
		if int(f) != i && !repeated[f] {
			repeated[f] = true
			c[bDuplicateEffect]++
		}
	}
}

// maxDenseUnit bounds the unit indices coverWork keeps in a table per task
// rather than a map: a task's units are numbered from 0.
const maxDenseUnit = 1 << 16

// believedAt reports whether some holder believed it held a lease at t.
func believedAt(h *history.History, t history.Time) bool {
	for _, b := range h.Beliefs {
		if !b.Inferred && b.Start <= t && (b.End >= t || b.End == history.Never) {
			return true
		}
	}
	return false
}

func pick(ok bool, yes, no int) int {
	if ok {
		return yes
	}
	return no
}

// coverHandoffs counts what any implementation's history shows of beliefs
// meeting faults and writes, from its beliefs, fault windows and writes
// alone: the behaviours of issue 27 that are not leasesim's protocol.
// Beliefs the recorder inferred count for none of them.
func coverHandoffs(a *analysis, c *Coverage) {
	h := a.h
	var held []*history.BeliefInterval // reported beliefs, by start
	for i := range h.Beliefs {
		if b := &h.Beliefs[i]; !b.Inferred {
			held = append(held, b)
		}
	}
	if len(held) == 0 {
		return
	}
	slices.SortStableFunc(held, func(x, y *history.BeliefInterval) int { return cmp.Compare(x.Start, y.Start) })
	for i := range h.Faults {
		w := &h.Faults[i]
		switch w.Kind {
		case history.FaultPause, history.FaultIsolate, history.FaultPartition, history.FaultSplit, history.FaultBridge:
		default:
			continue
		}
		for _, b := range held {
			if b.Start >= w.Start {
				break
			}
			if !liveAt(b, w.Start) || !w.Touches(b.Holder) {
				continue
			}
			if b.End == history.Never || b.End > w.End {
				c[bBeliefThroughFault]++
			}
			if w.Kind == history.FaultPause && startedBetween(held, b.Holder, w.Start, w.End) {
				c[bGrantWhilePaused]++
			}
		}
	}
	var head history.OpHead
	for i, r := range a.rows() {
		if r.kind != opWrite || !r.fenced() {
			continue
		}
		h.LoadOpHead(i, &head)
		end := head.Processed
		if head.Returned() {
			end = max(end, head.Return)
		}
		if end != history.Unknown && end != history.Never && startedBetween(held, head.Client, head.Call, end) {
			c[bHandsChangedMidWrite]++
		}
	}
}

// liveAt reports whether b was believed at t.
func liveAt(b *history.BeliefInterval, t history.Time) bool {
	return b.Start <= t && (b.End == history.Never || b.End >= t)
}

// startedBetween reports whether a belief of a holder other than holder
// began strictly between from and to; held is sorted by start.
func startedBetween(held []*history.BeliefInterval, holder string, from, to history.Time) bool {
	i, _ := slices.BinarySearchFunc(held, from+1, func(b *history.BeliefInterval, t history.Time) int { return cmp.Compare(b.Start, t) })
	for ; i < len(held) && held[i].Start < to; i++ {
		if held[i].Holder != holder {
			return true
		}
	}
	return false
}
