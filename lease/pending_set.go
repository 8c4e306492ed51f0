package lease

import (
	"cmp"
	"slices"
)

// pendingSet holds a holder's outstanding requests in the order they were
// sent, which is the order of their ReqIDs (nextReqID only increases), so a
// lookup is a binary search. A holder has a few requests out at a time; a
// map costs more to delete from than the set costs to shift, and every
// request is deleted once.
type pendingSet struct{ ps []*pending }

// add registers p, whose id is larger than every id in s.
func (s *pendingSet) add(p *pending) {
	if n := len(s.ps); n > 0 && s.ps[n-1].id >= p.id {
		violated("request-ids-increase", "request %#x sent after %#x", p.id, s.ps[n-1].id)
	}
	s.ps = append(s.ps, p)
}

// get returns the request with id, or nil.
func (s *pendingSet) get(id uint64) *pending {
	if i, ok := s.find(id); ok {
		return s.ps[i]
	}
	return nil
}

// remove unregisters p if it is registered, and reports whether it was.
func (s *pendingSet) remove(p *pending) bool {
	i, ok := s.find(p.id)
	if !ok || s.ps[i] != p {
		return false
	}
	s.ps = slices.Delete(s.ps, i, i+1)
	return true
}

func (s *pendingSet) find(id uint64) (int, bool) {
	return slices.BinarySearchFunc(s.ps, id, func(p *pending, id uint64) int { return cmp.Compare(p.id, id) })
}
