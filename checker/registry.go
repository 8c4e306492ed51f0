package checker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/history"
)

// registryPrefix is the key prefix of service registrations; a registrant
// holds the lease on "svc/"+name and attaches the key "svc/"+name to it
// (see scenarios/registry.go).
const registryPrefix = "svc/"

// checkRegistry checks P4's service-registry part, (c):
//
//   - liveness: if anyone reads the registry, every registrant's key is
//     seen by a reader within [HealAt, deadline], and from then on it stays:
//     every listing processed after deadline shows it (none after the
//     deadline means the run was too short to tell);
//   - staleness: a reader sees a key K at t only if a lease carrying K was
//     granted or renewed at p (processed by the grantor) with t <= p +
//     GrantorHold(ttl)/(1−rho): the grantor holds a lease GrantorHold(ttl)
//     on its own clock, which may run slow by rho. A later sighting is a
//     dead registration. If some clock drifted beyond rho, it is Unknown.
func checkRegistry(v *verdict, a *analysis, deadline history.Time) string {
	h := a.h
	stale := checkStaleness(v, a)
	keys := registrantKeys(a)
	if len(keys) == 0 {
		return "no registrants"
	}
	lists := listings(a)
	if len(lists) == 0 {
		return fmt.Sprintf("%d registrants, no readers", len(keys))
	}
	seen := make(map[sightingKey]bool, len(h.Sightings))
	for _, s := range h.Sightings {
		seen[sightingKey{reader: s.Reader, key: s.Key, at: s.At}] = true
	}
	back := 0
	for _, key := range keys {
		if seenBetween(h, key, h.HealAt, deadline) {
			back++
		} else if h.End < deadline {
			v.dontKnow(fmt.Sprintf("run too short: it ended at %v, before %q had to be seen again by %v",
				h.End, key, deadline))
		} else {
			v.violateDuring(deadline, h.HealAt, deadline,
				fmt.Sprintf("no reader saw the registration %q between the heal at %v and the bound %v",
					key, h.HealAt, deadline),
				lastBeliefOn(h, key))
		}
		checkStays(v, h, key, deadline, lists, seen)
	}
	return fmt.Sprintf("%d/%d registrations seen again; %d sightings within the staleness bound",
		back, len(keys), len(h.Sightings)-stale)
}

// sightingKey is one key in one listing.
type sightingKey struct {
	reader, key string
	at          history.Time
}

// checkStays checks that every listing processed after deadline shows key.
func checkStays(v *verdict, h *history.History, key string, deadline history.Time, lists []history.Operation,
	seen map[sightingKey]bool) {
	after := 0
	for i := range lists {
		l := &lists[i]
		if l.Processed <= deadline {
			continue
		}
		after++
		if !seen[sightingKey{reader: l.Client, key: key, at: l.Processed}] {
			v.violateDuring(l.Processed, deadline, l.Processed,
				fmt.Sprintf("the registration %q was missing from %s's listing at %v, after the bound %v",
					key, l.Client, l.Processed, deadline),
				describeOp(l), lastBeliefOn(h, key))
			return
		}
	}
	if after == 0 {
		v.dontKnow(fmt.Sprintf("run too short: no reader listed the registry after the bound %v, to see %q stay",
			deadline, key))
	}
}

// registrantKeys returns the registrations, sorted: the resources with the
// registry prefix that anyone believed or tried to acquire.
func registrantKeys(a *analysis) []string {
	h := a.h
	var keys []string
	for i := range h.Beliefs {
		if r := h.Beliefs[i].Resource; strings.HasPrefix(r, registryPrefix) {
			keys = append(keys, r)
		}
	}
	var op history.OpHead
	for i, r := range a.rows() {
		if !r.grantor() || r.kind != opAcquire {
			continue
		}
		if h.LoadOpHead(i, &op); strings.HasPrefix(op.Resource, registryPrefix) {
			keys = append(keys, op.Resource)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// listings returns the registry listings the grantor answered, in
// processed order: copies (History.Op), which are few.
func listings(a *analysis) []history.Operation {
	var lists []history.Operation
	for i, r := range a.inProcessedOrder() {
		if r.grantorOK(opList) {
			lists = append(lists, a.h.Op(i))
		}
	}
	return lists
}

func seenBetween(h *history.History, key string, from, to history.Time) bool {
	for _, s := range h.Sightings {
		if s.Key == key && from <= s.At && s.At <= to {
			return true
		}
	}
	return false
}

// checkStaleness checks every sighting against the latest time the lease
// carrying its key may still have been alive, and returns how many were
// stale. Ops and sightings are merged in time order; at equal times the
// ops come first. Without sightings there is nothing to check (most runs:
// only a registry has readers), and the ops are not walked.
func checkStaleness(v *verdict, a *analysis) int {
	h := a.h
	if len(h.Sightings) == 0 {
		return 0
	}
	s := staleness{v: v, h: h, alive: make(map[string]aliveUntil), keys: make(map[string][]history.KV)}
	next := sightingsInOrder(h.Sightings)
	var op history.Operation
	for i, r := range a.inProcessedOrder() {
		for len(next) > 0 && h.Sightings[next[0]].At < r.processed {
			s.sighting(&h.Sightings[next[0]])
			next = next[1:]
		}
		if granted := r.grantorOK(opAcquire); granted || r.grantorOK(opRenew) {
			h.LoadOp(i, &op)
			s.op(i, &op, granted)
		}
	}
	for _, i := range next {
		s.sighting(&h.Sightings[i])
	}
	return s.stale
}

// sightingsInOrder returns the indexes of sightings in time order.
func sightingsInOrder(ss []history.RegistrationSighted) []int32 {
	return sortedIndices(len(ss), func(a, b int32) int { return cmp.Compare(ss[a].At, ss[b].At) })
}

// aliveUntil is the latest true time a key's lease may be alive, and the
// grant or renewal that set it (its index in the history), if set.
type aliveUntil struct {
	at  history.Time
	by  int
	set bool
}

// staleness is the state of the registry staleness sweep.
type staleness struct {
	v     *verdict
	h     *history.History
	alive map[string]aliveUntil   // by key
	keys  map[string][]history.KV // the keys attached to each resource's latest grant
	stale int
}

// op extends the life of the keys of a lease granted (an acquire the
// grantor accepted, which attaches its keys) or renewed by op, operation i
// of the history. op may be reused after: its keys are kept as a copy.
func (s *staleness) op(i int, op *history.Operation, granted bool) {
	if granted {
		s.keys[op.Input.Resource] = slices.Clone(op.Input.Keys)
	}
	ttl := op.Output.TTL
	if ttl <= 0 {
		ttl = s.h.Lease.TTL
	}
	until := op.Processed.Add(holdTrue(s.h.Lease, ttl))
	for _, kv := range s.keys[op.Input.Resource] {
		if a := s.alive[kv.Key]; !a.set || until > a.at {
			s.alive[kv.Key] = aliveUntil{at: until, by: i, set: true}
		}
	}
}

// sighting checks one sighting against its key's lease.
func (s *staleness) sighting(x *history.RegistrationSighted) {
	a := s.alive[x.Key]
	if a.set && x.At <= a.at {
		return
	}
	s.stale++
	detail := fmt.Sprintf("a reader saw a dead registration for %q: %s saw it at %v", x.Key, x.Reader, x.At)
	evidence := []string{fmt.Sprintf("%s saw %q owned by %s at %v", x.Reader, x.Key, x.Owner, x.At)}
	from := x.At
	if !a.set {
		detail += ", but no lease ever carried it"
	} else {
		by := s.h.Op(a.by)
		from = by.Processed
		detail += fmt.Sprintf(", after the bound %v of its lease's last grant or renewal at %v", a.at, by.Processed)
		evidence = append(evidence, "last grant or renewal: "+describeOp(&by))
	}
	if driftExceeded(s.h) {
		s.v.assumptionExceeded(driftNote(s.h) + ", so " + detail + " is not a bug")
		return
	}
	s.v.violateDuring(x.At, from, x.At, detail, evidence...)
}
