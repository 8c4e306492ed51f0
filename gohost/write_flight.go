package gohost

import "github.com/leasesim/leasesim/history"

// sentWrite names a write a StoreClient sent by what the store receives,
// so that the store's record of it can say when it was sent without the
// wire carrying the instant (a trace counts the bytes on the wire).
type sentWrite struct {
	writer               string
	life                 uint64
	resource, key, value string
	token                uint64
}

// sendsWrite records, on a writer's node, that it sends req now.
func (n *Node) sendsWrite(req StoreRequest) {
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if n.dead {
		return
	}
	k := sentWrite{req.Writer, req.Life, req.Resource, req.Key, req.Value, req.Token}
	if h.rec.sends == nil {
		h.rec.sends = make(map[sentWrite][]history.Time)
	}
	h.rec.sends[k] = append(h.rec.sends[k], history.Time(h.now()))
}

// sentAt returns when the earliest write like w not yet received was
// sent, and forgets it; 0 when no StoreClient sent one. Two identical
// writes of one life are told apart by order: a client sends one at a
// time, and a write that was sent again after a failure is taken as the
// earlier send (its flight is then the longer, never the shorter).
func (r *recorder) sentAt(w Write) history.Time {
	k := sentWrite{w.Writer, w.WriterIncarnation, w.Resource, w.Key, w.Value, w.Token}
	q := r.sends[k]
	if len(q) == 0 {
		return 0
	}
	if len(q) == 1 {
		delete(r.sends, k)
	} else {
		r.sends[k] = q[1:]
	}
	return q[0]
}
