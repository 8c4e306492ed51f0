package checker

import (
	"strings"

	"github.com/leasesim/leasesim/history"
)

// A grant is identified by its holder, the holder's incarnation and its
// token: a token that a buggy grantor hands to two holders is two grants,
// and so is one handed to a holder and to its restarted self, a new actor
// (a write its dead incarnation left in flight is then not the new one's).
type grantID struct {
	holder      string
	incarnation uint64
	token       uint64
}

// grantKind says what a successful acquire reply was.
type grantKind uint8

const (
	// reconfirmed: the reply re-confirms the holder's own current grant
	// (the latest grant on the resource), as a renewal would. Not a new
	// grant.
	reconfirmed grantKind = iota
	// fresh: a new grant whose token exceeds every earlier token issued on
	// the resource.
	fresh
	// reissued: a new grant whose token does not exceed an earlier token
	// issued on the resource; P2 reports it.
	reissued
	// toEarlierIncarnation: the reply re-confirms the current grant to an
	// earlier incarnation of its holder (a request the dead process left
	// in flight). It grants nothing the successor does not hold; if that
	// incarnation were alive and believed it, P1 would judge the two
	// beliefs as two actors'.
	toEarlierIncarnation
)

// leaseStoreSpec reports whether spec (a history's) is leasesim's lease
// store, under any expiry policy ("lease-store/holder-budgets"), or unnamed:
// a history in leasesim's protocol, whose operations show its grants.
func leaseStoreSpec(spec string) bool {
	base, _, _ := strings.Cut(spec, "/")
	return base == "" || base == NeedsLeaseStore
}

// isNew reports whether the reply was a new grant (fresh or reissued), not
// a re-confirmation of the current one.
func (k grantKind) isNew() bool { return k == fresh || k == reissued }

// grantState is what the grantor last granted on one resource.
type grantState struct {
	latest   grantID
	maxToken uint64 // the highest token issued on the resource
	granted  bool   // whether anything was granted yet
}

// grantTracker classifies successful acquire replies, in the order the
// grantor processed them, into new grants and re-confirmations.
type grantTracker struct {
	byResource map[string]*grantState
}

func newGrantTracker() grantTracker {
	return grantTracker{byResource: make(map[string]*grantState)}
}

// observe classifies op, a successful acquire, and returns the state before
// it. It must see the acquires in processed order.
func (t grantTracker) observe(op *history.Operation) (grantKind, grantState) {
	st := t.byResource[op.Input.Resource]
	if st == nil {
		st = &grantState{}
		t.byResource[op.Input.Resource] = st
	}
	prev := *st
	id := grantID{holder: op.Client, incarnation: op.Incarnation, token: op.Output.Token}
	kind := fresh
	switch {
	case st.granted && st.latest == id:
		kind = reconfirmed
	case st.granted && st.latest.holder == id.holder && st.latest.token == id.token &&
		id.incarnation < st.latest.incarnation:
		return toEarlierIncarnation, prev
	case st.granted && id.token <= st.maxToken:
		kind = reissued
	}
	st.latest, st.granted = id, true
	st.maxToken = max(st.maxToken, id.token)
	return kind, prev
}

// latest returns the latest grant on resource, if any.
func (t grantTracker) latest(resource string) (grantID, bool) {
	st := t.byResource[resource]
	if st == nil || !st.granted {
		return grantID{}, false
	}
	return st.latest, true
}
