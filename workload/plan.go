package workload

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/faults"
)

// Opener opens a workload for one pass from its first line; the caller
// closes what it returns. A scenario re-opens its workload for every run.
type Opener func() (io.ReadCloser, error)

// File opens the workload file at path.
func File(path string) Opener {
	return func() (io.ReadCloser, error) { return os.Open(path) }
}

// Bytes opens a workload held in memory, for tests and examples.
func Bytes(data []byte) Opener {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// Plan is what one pass over a workload finds: everything a scenario needs
// except the tasks, which are streamed again on every run.
type Plan struct {
	// Header is the workload's header.
	Header Header
	// Duration is the header's duration or, if it has none, the last
	// instant an event refers to (a task's arrival, a pause's end, a
	// deploy's last restart). Faults stop there.
	Duration time.Duration
	// Tasks and Units count the tasks and their units.
	Tasks int
	Units int64
	// WorkMax is the longest task: units × its largest unit time.
	WorkMax time.Duration
	// Faults are the file's crashes, restarts, pauses and deploys as a
	// fault schedule on the workers "w1".."wN" and the store's members
	// (Event.Member: "grantor", "grantor2", …, or RoleLeader, which a
	// store of one grantor does not resolve: see ForStore), with HealAt =
	// Duration:
	// deploys expanded into a crash and a restart per worker, a restart
	// added RestartAfter after every crash that the file does not follow
	// with a restart of its own, and events at or after Duration left out
	// (the heal phase restarts and resumes every worker there).
	Faults faults.Schedule

	// sources says where each of Faults.Events came from, for ForStore's
	// errors.
	sources []sourced
}

// Inspect reads a workload once, checks all of it, and returns its plan.
// Beyond what the Reader checks line by line, it rejects duplicate task
// ids and fault events that contradict each other (crashing a crashed
// worker, restarting or pausing one that is down), naming the line.
//
// Memory: the fault events are kept (at most faults.MaxEvents); of the
// tasks only a 64-bit hash of each id and its line number are kept (a
// map entry of a few tens of bytes), to find duplicates.
func Inspect(open Opener) (Plan, error) {
	rc, err := open()
	if err != nil {
		return Plan{}, fmt.Errorf("workload: open: %w", err)
	}
	defer rc.Close()
	r, err := NewReader(rc)
	if err != nil {
		return Plan{}, err
	}
	p := Plan{Header: r.Header()}
	ids := idSet{seed: maphash.MakeSeed(), first: make(map[uint64]int), open: open}
	var x explicit
	var last time.Duration
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Plan{}, err
		}
		last = max(last, e.end(p.Header.Workers))
		if e.Type != TypeTask {
			if err := x.add(e, r.Line(), p.Header.Workers); err != nil {
				return Plan{}, err
			}
			continue
		}
		if err := ids.add(e.ID, r.Line()); err != nil {
			return Plan{}, err
		}
		p.Tasks++
		p.Units += int64(e.Units)
		p.WorkMax = max(p.WorkMax, e.work())
	}
	p.Duration = p.Header.Duration
	if p.Duration == 0 {
		p.Duration = min(last, MaxDuration)
	}
	if p.Duration <= 0 {
		return Plan{}, &LineError{Line: 1, Subject: "header", Field: "duration",
			Err: errors.New("missing, and every event is at 0s: give the workload a duration")}
	}
	if p.Faults, p.sources, err = x.schedule(p.Header, p.Duration); err != nil {
		return Plan{}, err
	}
	if err := p.checkRandomLoad(); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// ForStore returns the plan as it runs against a lease store of members
// members (lease.Impl.Members; 0 counts as 1), which a harness calls once
// it knows the implementation under test:
//
//   - on a store of one grantor, a pause of RoleLeader pauses that
//     grantor, the one node that grants: the same file then runs against
//     every implementation, and a replicated store's leader failure is a
//     grantor failure for the others;
//   - on a replicated store, RoleLeader stays, for the run to resolve
//     when the pause begins;
//   - an event on a member the store does not have ("grantor3" on a store
//     of one or two) is bad input, a *LineError naming its line and the
//     member field, as is a pause of RoleLeader that, resolved to the
//     grantor, contradicts the file's crashes of the grantor.
func (p Plan) ForStore(members int) (Plan, error) {
	members = max(members, 1)
	out := p
	out.Faults.Events = slices.Clone(p.Faults.Events)
	for i, e := range out.Faults.Events {
		if i >= len(p.sources) {
			break // a Plan not made by Inspect: nothing to say where
		}
		switch n := memberIndex(e.Node); {
		case e.Node == RoleLeader && members == 1:
			out.Faults.Events[i].Node = memberName(1)
		case n > members:
			src := p.sources[i]
			return Plan{}, &LineError{Line: src.line, Subject: src.subject, Field: "member",
				Err: fmt.Errorf("%s is not a member of the lease store under test, which has %d (%s)", e.Node, members,
					strings.Join(faultNodes(0, members, false), ", "))}
		}
	}
	if err := validateAt(out.Faults, p.sources, faultNodes(p.Header.Workers, members, members > 1)); err != nil {
		return Plan{}, err
	}
	return out, nil
}

// idSet finds duplicate task ids in a small, fixed amount of memory per
// task: it keeps a hash of each id and the line it was first seen on. A repeated hash is
// confirmed by reading that line again, so a collision is never reported
// as a duplicate.
type idSet struct {
	seed  maphash.Seed
	first map[uint64]int // hash -> line; looked up, never iterated
	open  Opener
}

func (s *idSet) add(id string, line int) error {
	h := maphash.String(s.seed, id)
	prev, seen := s.first[h]
	if !seen {
		s.first[h] = line
		return nil
	}
	same, err := s.idOnLine(prev, id)
	if err != nil {
		return err
	}
	if same {
		return badf("id", "duplicate: line %d has a task with the same id", prev).at(line, "task "+quote(id))
	}
	return nil
}

// idOnLine reports whether the event on line is a task with this id.
func (s *idSet) idOnLine(line int, id string) (bool, error) {
	rc, err := s.open()
	if err != nil {
		return false, fmt.Errorf("workload: open: %w", err)
	}
	defer rc.Close()
	r, err := NewReader(rc)
	if err != nil {
		return false, err
	}
	for {
		e, err := r.Next()
		if err != nil {
			return false, fmt.Errorf("workload: the file changed while it was read: %w", err)
		}
		if r.Line() == line {
			return e.Type == TypeTask && e.ID == id, nil
		}
	}
}

// checkRandomLoad bounds the faults the environment will draw per run.
func (p Plan) checkRandomLoad() error {
	env := p.Header.Env
	workers, minutes := float64(p.Header.Workers), p.Duration.Minutes()
	budget := float64(faults.MaxEvents-len(p.Faults.Events)) / 2
	if gc := env.GCPause; gc != nil && workers*gc.PerMinute*minutes > budget {
		return badf("env.gc_pause.per_minute", "%g pauses a minute on %d workers for %v would draw about %.0f fault "+
			"events a run, more than the limit of %d allows", gc.PerMinute, p.Header.Workers, p.Duration,
			workers*gc.PerMinute*minutes, faults.MaxEvents).at(1, "header")
	}
	if n := workers * env.CrashPerHour * minutes / 60 * 2; n > budget {
		return badf("env.crash_per_hour", "%g crashes an hour on %d workers for %v would draw about %.0f fault "+
			"events a run, more than the limit of %d allows", env.CrashPerHour, p.Header.Workers, p.Duration, n,
			faults.MaxEvents).at(1, "header")
	}
	return nil
}
