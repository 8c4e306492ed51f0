package etcd

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// SupportedKinds are the faults.Schedule kinds the real-time host applies,
// and how:
//
//	partition, partition-oneway, isolate, bridge, heal   cuts in the fault proxy (bytes wait)
//	link          latency min..max (uniform), loss 1 = drop the bytes ("let the request
//	              through, drop the response" is a link member -> client with loss 1)
//	link-reset    every link back to no latency, no drop
//	pause         SIGSTOP, then SIGCONT after the duration
//	crash         SIGKILL (a member or a holder)
//	restart       a crashed member, from its data directory (a new life)
//
// Not supported, refused before the run starts: drift and step (the host has
// one clock, CLOCK_MONOTONIC, shared by every process), failpoint (etcd's
// gofail failpoints need a build tag this host does not use), restarting a
// holder, and link loss other than 0 or 1, duplication and reordering (TCP has
// neither).
var SupportedKinds = []faults.Kind{faults.KindPartition, faults.KindPartitionOneWay, faults.KindIsolate,
	faults.KindBridge, faults.KindHeal, faults.KindLink, faults.KindLinkReset, faults.KindPause,
	faults.KindCrash, faults.KindRestart}

// checkSchedule refuses what the host cannot apply.
func checkSchedule(s faults.Schedule, nodes []string, holders map[string]bool) error {
	if err := s.Validate(nodes); err != nil {
		return fmt.Errorf("etcd: schedule: %w", err)
	}
	for i, e := range s.Events {
		bad := func(why string) error {
			return fmt.Errorf("etcd: schedule event %d (%s): %s on the real-time host", i, e, why)
		}
		switch e.Kind {
		case faults.KindDrift, faults.KindStep:
			return bad("not supported: every process shares the machine's one monotonic clock")
		case faults.KindFailpoint:
			return bad("not supported: no failpoints in the member binary")
		case faults.KindRestart:
			if holders[e.Node] {
				return bad("not supported: a holder is not restarted")
			}
		case faults.KindLink:
			if l := e.Link; l != nil && ((l.Loss != 0 && l.Loss != 1) || l.Duplicate != 0 || l.Reorder != 0) {
				return bad("not supported: loss other than 0 or 1, duplication and reordering (TCP has none)")
			}
		}
	}
	return nil
}

// injector applies a schedule to a running host and records the fault
// windows.
type injector struct {
	h       *host
	mu      sync.Mutex
	windows []*history.FaultWindow
	timers  []*time.Timer
}

// open opens a fault window now.
func (in *injector) open(kind, detail string, nodes ...string) *history.FaultWindow {
	in.mu.Lock()
	defer in.mu.Unlock()
	w := &history.FaultWindow{Kind: kind, Nodes: nodes, Start: history.Time(in.h.now()), End: history.Never, Detail: detail}
	in.windows = append(in.windows, w)
	return w
}

// closeWhere closes the open windows match selects, now.
func (in *injector) closeWhere(match func(*history.FaultWindow) bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	now := history.Time(in.h.now())
	for _, w := range in.windows {
		if w.End == history.Never && match(w) {
			w.End = now
		}
	}
}

// isCut is a window of a cut.
func isCut(w *history.FaultWindow) bool {
	switch w.Kind {
	case history.FaultPartition, history.FaultPartitionOneWay, history.FaultIsolate, history.FaultBridge:
		return true
	}
	return false
}

// schedule arms a timer for every event and for the heal phase.
func (in *injector) schedule(s faults.Schedule) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, e := range s.Events {
		in.timers = append(in.timers, time.AfterFunc(e.At-in.h.now(), func() { in.apply(e) }))
	}
	if len(s.Events) > 0 {
		in.timers = append(in.timers, time.AfterFunc(s.HealAt-in.h.now(), in.healPhase))
	}
}

// stop disarms what has not fired.
func (in *injector) stop() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, t := range in.timers {
		t.Stop()
	}
}

// apply applies one event.
func (in *injector) apply(e faults.Event) {
	h := in.h
	nt := h.net
	h.logf("fault: %s", e)
	switch e.Kind {
	case faults.KindPartition, faults.KindBridge:
		for i, g := range e.Groups {
			for _, o := range e.Groups[i+1:] {
				for _, a := range g {
					for _, b := range o {
						nt.Cut(a, b)
						nt.Cut(b, a)
					}
				}
			}
		}
		kind := history.FaultPartition
		nodes := []string(nil)
		if e.Kind == faults.KindBridge {
			kind, nodes = history.FaultBridge, []string{e.Bridge}
		}
		in.open(kind, groupsText(e.Groups), nodes...)
	case faults.KindPartitionOneWay:
		nt.Cut(e.From, e.To)
		in.open(history.FaultPartitionOneWay, "", e.From, e.To)
	case faults.KindIsolate:
		nt.Isolate(e.Node)
		in.open(history.FaultIsolate, "", e.Node)
	case faults.KindHeal:
		nt.Heal()
		in.closeWhere(isCut)
		in.open(history.FaultHeal, "").End = history.Time(h.now())
	case faults.KindLink:
		l := linkState{}
		detail := ""
		if e.Link != nil {
			l = linkState{latMin: e.Link.Latency.Min, latMax: max(e.Link.Latency.Max, e.Link.Latency.Min), drop: e.Link.Loss == 1}
			detail = fmt.Sprintf("latency %v..%v", l.latMin, l.latMax)
			if l.drop {
				detail = "drop every byte (loss 1)"
			}
		}
		nt.SetLink(e.From, e.To, l)
		in.closeWhere(func(w *history.FaultWindow) bool {
			return w.Kind == history.FaultLink && w.Node() == e.From && w.Peer() == e.To
		})
		in.open(history.FaultLink, detail, e.From, e.To)
	case faults.KindLinkReset:
		nt.ResetLinks()
		in.closeWhere(func(w *history.FaultWindow) bool { return w.Kind == history.FaultLink })
	case faults.KindPause:
		p := h.proc(e.Node)
		if p == nil || !p.alive() {
			h.logf("fault: pause %s ignored: not running", e.Node)
			return
		}
		if err := p.pause(); err != nil {
			h.logf("fault: %v", err)
			return
		}
		w := in.open(history.FaultPause, fmt.Sprintf("SIGSTOP for %v", e.Duration), e.Node)
		in.mu.Lock()
		in.timers = append(in.timers, time.AfterFunc(e.Duration, func() {
			if err := p.resume(); err != nil {
				h.logf("fault: %v", err)
			}
			in.mu.Lock()
			if w.End == history.Never {
				w.End = history.Time(h.now())
			}
			in.mu.Unlock()
			h.logf("fault: resumed %s", e.Node)
		}))
		in.mu.Unlock()
	case faults.KindCrash:
		p := h.proc(e.Node)
		if p == nil {
			return
		}
		h.crash(e.Node, p)
		in.closeWhere(func(w *history.FaultWindow) bool { return w.Kind == history.FaultPause && w.Node() == e.Node })
		in.open(history.FaultCrash, "SIGKILL", e.Node)
	case faults.KindRestart:
		if err := h.restartMember(e.Node); err != nil {
			h.logf("fault: %v", err)
			return
		}
		in.closeWhere(func(w *history.FaultWindow) bool { return w.Kind == history.FaultCrash && w.Node() == e.Node })
		in.open(history.FaultRestart, "", e.Node).End = history.Time(h.now())
	}
}

// healPhase ends every fault: cuts lifted, links reset, paused processes
// continued, crashed members restarted.
func (in *injector) healPhase() {
	h := in.h
	h.logf("fault: heal phase")
	h.net.Heal()
	h.net.ResetLinks()
	for _, p := range h.procs() {
		p.mu.Lock()
		stopped := p.stopped
		p.mu.Unlock()
		if stopped {
			_ = p.resume()
		}
	}
	for _, m := range h.members {
		if !m.proc.alive() {
			if err := h.restartMember(m.name); err != nil {
				h.logf("heal: %v", err)
			}
		}
	}
	in.closeWhere(func(*history.FaultWindow) bool { return true })
}

func groupsText(gs [][]string) string {
	var parts []string
	for _, g := range gs {
		parts = append(parts, "["+strings.Join(g, " ")+"]")
	}
	return strings.Join(parts, " | ")
}

// Drop returns a link event that lets requests from -> to through and drops
// every byte to -> from (the responses) from at until at+d, then resets the
// links; the connections that lost bytes are closed then.
func Drop(from, to string, at, d time.Duration) []faults.Event {
	return []faults.Event{
		{At: at, Kind: faults.KindLink, From: to, To: from, Link: &sim.LinkConfig{Latency: sim.FixedDist(0), Loss: 1}},
		{At: at + d, Kind: faults.KindLinkReset},
	}
}
