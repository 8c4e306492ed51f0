package lease

import (
	"slices"
	"sort"
	"time"
)

// pendingSet holds a holder's outstanding requests, by value, in the order
// they were sent, which is the order of their ReqIDs (nextReqID only
// increases) and of their deadlines (one RequestTimeout), so a lookup is a
// binary search and the next to time out is the first. A holder has a few
// requests out at a time; a map costs more to delete from than the set
// costs to shift, and every request is deleted once.
type pendingSet struct{ ps []pending }

// add registers p, whose id is larger than every id in s.
func (s *pendingSet) add(p pending) {
	if n := len(s.ps); n > 0 && s.ps[n-1].id >= p.id {
		violated("request-ids-increase", "request %#x sent after %#x", p.id, s.ps[n-1].id)
	}
	s.ps = append(s.ps, p)
}

// take unregisters and returns the request with id if it is registered
// and awaits a reply of kind.
func (s *pendingSet) take(id uint64, kind Kind) (pending, bool) {
	// By index, not slices.BinarySearchFunc: its comparison takes each
	// probed pending by value, and a pending carries its action.
	i := sort.Search(len(s.ps), func(i int) bool { return s.ps[i].id >= id })
	if i == len(s.ps) || s.ps[i].id != id || s.ps[i].kind != kind {
		return pending{}, false
	}
	p := s.ps[i]
	s.ps = slices.Delete(s.ps, i, i+1)
	return p, true
}

// takeExpired unregisters and returns the oldest request if its deadline
// is not after now.
func (s *pendingSet) takeExpired(now time.Duration) (pending, bool) {
	if len(s.ps) == 0 || s.ps[0].deadline > now {
		return pending{}, false
	}
	p := s.ps[0]
	s.ps = slices.Delete(s.ps, 0, 1)
	return p, true
}
