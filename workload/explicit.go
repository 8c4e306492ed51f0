package workload

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/faults"
)

// explicit collects a file's fault events as fault events on the worker
// nodes and the store's members, each remembering the line it came from,
// so that a contradiction found later can be reported at its line.
type explicit struct {
	events []sourced
}

// sourced is one fault event and where it came from.
type sourced struct {
	ev      faults.Event
	line    int
	subject string
	seq     int // order among events at the same instant
}

// add converts one crash, restart, pause or deploy.
func (x *explicit) add(e Event, line, workers int) error {
	push := func(ev faults.Event) error {
		if len(x.events) >= faults.MaxEvents {
			return badf("", "more than %d fault events (deploys count one crash and one restart per worker)",
				faults.MaxEvents).at(line, e.subject())
		}
		x.events = append(x.events, sourced{ev: ev, line: line, subject: e.subject(), seq: 2 * len(x.events)})
		return nil
	}
	switch e.Type {
	case TypeCrash:
		return push(faults.Event{At: e.At, Kind: faults.KindCrash, Node: e.target()})
	case TypeRestart:
		return push(faults.Event{At: e.At, Kind: faults.KindRestart, Node: e.target()})
	case TypePause:
		return push(faults.Event{At: e.At, Kind: faults.KindPause, Node: e.target(), Duration: e.Duration})
	case TypeDeploy:
		for i := 1; i <= workers; i++ {
			at := e.At + time.Duration(i-1)*e.Spacing
			if err := push(faults.Event{At: at, Kind: faults.KindCrash, Node: WorkerName(i)}); err != nil {
				return err
			}
			if err := push(faults.Event{At: at + e.Down, Kind: faults.KindRestart, Node: WorkerName(i)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// schedule returns the events as a schedule that heals at healAt: sorted by
// time, with a restart restartAfter after every crash that is not followed
// by a restart of the same worker or member, without the events at or after healAt,
// and validated, so that a contradiction is reported at its line.
func (x *explicit) schedule(h Header, healAt time.Duration) (faults.Schedule, []sourced, error) {
	byTime := func(a, b sourced) int {
		return cmp.Or(cmp.Compare(a.ev.At, b.ev.At), cmp.Compare(a.seq, b.seq))
	}
	slices.SortFunc(x.events, byTime)
	x.addRestarts(h.Env.restartAfter(), h.Workers)
	slices.SortFunc(x.events, byTime)
	x.events = slices.DeleteFunc(x.events, func(s sourced) bool { return s.ev.At >= healAt })

	s := faults.Schedule{Version: faults.Version, HealAt: healAt}
	for _, e := range x.events {
		s.Events = append(s.Events, e.ev)
	}
	if err := validateAt(s, x.events, faultNodes(h.Workers, MaxMembers, true)); err != nil {
		return faults.Schedule{}, nil, err
	}
	if len(s.Events) == 0 {
		s.Events = nil
	}
	return s, x.events, nil
}

// faultNodes returns the nodes a file's faults may name: the workers, the
// store's members up to members, and RoleLeader if leader.
func faultNodes(workers, members int, leader bool) []string {
	nodes := make([]string, 0, workers+members+1)
	for i := 1; i <= workers; i++ {
		nodes = append(nodes, WorkerName(i))
	}
	for i := 1; i <= members; i++ {
		nodes = append(nodes, memberName(i))
	}
	if leader {
		nodes = append(nodes, RoleLeader)
	}
	return nodes
}

// validateAt validates s, whose events came from srcs (one each, in
// order), against nodes, and reports a contradiction at the line of the
// event it lies in, naming the event's worker or member field.
func validateAt(s faults.Schedule, srcs []sourced, nodes []string) error {
	err := s.Validate(nodes)
	if err == nil {
		return nil
	}
	var verr *faults.ValidationError
	if errors.As(err, &verr) && verr.Index >= 0 && verr.Index < len(srcs) {
		src := srcs[verr.Index]
		field := verr.Field
		if field == "node" {
			field = "worker"
			if src.ev.Node == RoleLeader || memberIndex(src.ev.Node) > 0 {
				field = "member"
			}
		}
		return &LineError{Line: src.line, Subject: src.subject, Field: field, Err: verr.Err}
	}
	return &LineError{Err: fmt.Errorf("fault schedule: %w", err)}
}

// addRestarts adds a restart after every crash whose worker's next event
// is not a restart. The added restart sorts before any other event of that
// worker at the same instant, so "crash, then pause when it is back up"
// reads as meant.
func (x *explicit) addRestarts(after time.Duration, workers int) {
	next := make([]int, workers+MaxMembers+1) // per worker, then member: index of its last crash not yet followed, or -1
	for i := range next {
		next[i] = -1
	}
	var added []sourced
	restart := func(crash sourced, following *sourced) {
		r := sourced{ev: faults.Event{At: crash.ev.At + after, Kind: faults.KindRestart, Node: crash.ev.Node},
			line: crash.line, subject: crash.subject, seq: crash.seq + 1}
		if following != nil && following.ev.At == r.ev.At {
			r.seq = following.seq - 1
		}
		added = append(added, r)
	}
	for i, e := range x.events {
		w := nodeSlot(e.ev.Node, workers)
		if c := next[w]; c >= 0 && e.ev.Kind != faults.KindRestart {
			restart(x.events[c], &x.events[i])
		}
		next[w] = -1
		if e.ev.Kind == faults.KindCrash {
			next[w] = i
		}
	}
	for _, c := range next {
		if c >= 0 {
			restart(x.events[c], nil)
		}
	}
	x.events = append(x.events, added...)
}

// nodeSlot numbers the nodes a file's faults name: worker i is i, store
// member i is workers+i, and anything else (RoleLeader) is 0.
func nodeSlot(node string, workers int) int {
	if i := workerIndex(node, workers); i > 0 {
		return i
	}
	if i := memberIndex(node); i > 0 {
		return workers + i
	}
	return 0
}
