package etcd

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// Story is a real-etcd story: its scenario (the run configuration as
// scenarios.Processes on an Env, its faults and premises), and what
// reproducing it means when real time makes replay statistical: the
// verdicts it expects, and for some what else a run must show and the
// figures it measures.
type Story struct {
	scenarios.Scenario
	// Expect is the verdicts that reproduce the story, property by status.
	Expect map[string]checker.Status
	// Shows, if set, is what else a run must show to reproduce the story.
	Shows func(h *history.History) bool
	// Measure returns the story's figures (name → value), if it has any.
	Measure func(h *history.History, r *Result) map[string]time.Duration
}

// story returns the Story of cfg on e.
func (e *Env) story(doc, text string, cfg Config, premises ...scenarios.Premise) Story {
	return Story{Scenario: scenarios.Scenario{Name: cfg.Story, Doc: doc, Story: text,
		Processes: &processes{env: e, cfg: cfg}, Faults: cfg.Schedule, Premises: premises,
		Duration: cfg.Duration, HealAt: cfg.Schedule.HealAt}}
}

// Stories returns the stories, each fenced and unfenced where fencing is
// the point.
func (e *Env) Stories() []Story {
	var out []Story
	for _, unfenced := range []bool{false, true} {
		out = append(out, e.Kleppmann(unfenced), e.StaleUnlock(unfenced))
	}
	return append(out, e.LeaderPartition())
}

// StoryNamed returns the story called name.
func (e *Env) StoryNamed(name string) (Story, bool) {
	for _, s := range e.Stories() {
		if s.Name == name {
			return s, true
		}
	}
	return Story{}, false
}

// StoryNames are the stories' names, in order.
func (e *Env) StoryNames() []string {
	var out []string
	for _, s := range e.Stories() {
		out = append(out, s.Name)
	}
	return out
}

func suffix(unfenced bool) string {
	if unfenced {
		return "-unfenced"
	}
	return ""
}

// expectP2 is P2's expected status: ok with the fenced store, violated
// without it.
func expectP2(unfenced bool) checker.Status {
	if unfenced {
		return checker.Violated
	}
	return checker.OK
}

// Kleppmann is the Kleppmann GC-pause story (scenarios.KleppmannGCPause)
// on real etcd, one member: h1 locks the mutex and writes; between
// deciding to write and writing it is stopped (SIGSTOP) for twice its
// session's TTL; etcd expires the session, h2 takes the lock and writes;
// h1, continued, sends the write it decided on under its old revision. The
// fenced store refuses it: P1 holds (h1's belief ended at its own
// deadline) and so does P2, as on the event host; without fencing the
// stale write is accepted and P2 is violated.
func (e *Env) Kleppmann(unfenced bool) Story {
	ttl := 2 * time.Second
	pauseAt, pauseFor := 1500*time.Millisecond, 2*ttl
	cfg := Config{Story: "kleppmann-gc-pause" + suffix(unfenced), Members: 1, TTL: ttl, Unfenced: unfenced,
		Holders: []HolderSpec{{Name: "h1", LockAt: 300 * time.Millisecond, Work: 500 * time.Millisecond},
			{Name: "h2", LockAt: 800 * time.Millisecond, Work: 500 * time.Millisecond}},
		Schedule: faults.Schedule{Version: faults.Version, HealAt: 6 * time.Second,
			Events: []faults.Event{{At: pauseAt, Kind: faults.KindPause, Node: "h1", Duration: pauseFor}}},
		Duration: 7 * time.Second}
	s := e.story("a holder SIGSTOPped past its session TTL between deciding to write and writing",
		"h1 holds the mutex and, between deciding to write and writing, is stopped for twice its session's TTL. "+
			"etcd expires the session, h2 locks and writes under a newer revision. When h1 continues it sends "+
			"its write under the old revision; the fenced store refuses it.", cfg,
		scenarios.FaultWhileHolding("h1 was paused longer than the TTL while it held the lock", ttl, []string{"h1"},
			history.FaultPause),
		tookLockDuring("h2", "h1"),
		staleWriteSent("h1"))
	s.Expect = map[string]checker.Status{"P1": checker.OK, "P2": expectP2(unfenced)}
	return s
}

// tookLockDuring: taker began believing while paused was paused.
func tookLockDuring(taker, paused string) scenarios.Premise {
	return scenarios.Premise{
		Name: taker + " took the lock while " + paused + " was paused",
		Holds: func(h *history.History) (bool, string) {
			b := firstBelief(h, taker)
			for _, w := range h.Faults {
				if w.Kind == history.FaultPause && w.Node() == paused && b != nil && b.Start > w.Start && b.Start < w.End {
					return true, fmt.Sprintf("%s's belief %s; pause %v..%v", taker, beliefText(b), w.Start, w.End)
				}
			}
			return false, fmt.Sprintf("%s's belief %s, in no pause of %s", taker, beliefText(b), paused)
		},
	}
}

// staleWriteSent: holder sent a write under the token it held when its
// pause began after another writer's write under a newer token reached the
// store: a stale write, accepted or refused. (It is read from the store's
// order, not the pause window's end, which the host stamps after SIGCONT,
// when the holder may already have written.)
func staleWriteSent(holder string) scenarios.Premise {
	return scenarios.Premise{
		Name: holder + " sent a write under its old token after a newer one was written",
		Holds: func(h *history.History) (bool, string) {
			for _, w := range h.Faults {
				if w.Kind != history.FaultPause || w.Node() != holder {
					continue
				}
				b := beliefAt(h, holder, w.Start)
				if b == nil {
					return false, fmt.Sprintf("%s held no lock when its pause began at %v", holder, w.Start)
				}
				var newer *history.Operation
				for _, o := range h.AllOps() {
					switch {
					case o.Server != StoreName:
					case newer == nil && o.Client != holder && o.Input.Token > b.Token && o.Output.OK:
						newer = &o
					case newer != nil && o.Client == holder && o.Input.Token == b.Token:
						return true, fmt.Sprintf("%s wrote under token %d at %v, after %s's token %d at %v; accepted %v",
							holder, b.Token, o.Call, newer.Client, newer.Input.Token, newer.Call, o.Output.OK)
					}
				}
				return false, fmt.Sprintf("no write of %s under token %d came after a newer token's (%s)", holder, b.Token,
					beliefText(b))
			}
			return false, holder + " was never paused"
		},
	}
}

// StaleUnlock is etcd #22082: h1 unlocks, the harness lets the Delete
// through and drops its response; h1 locks again on the same session (the
// same key at a newer create revision), then retries the first Unlock,
// which deletes the newer key; h2 then takes the lock while h1 still
// believes it holds it. P1 names the bug. The holders report the
// premises of their script themselves (response lost, relocked the same
// key, the retry deleted the newer one).
func (e *Env) StaleUnlock(unfenced bool) Story {
	cfg := Config{Story: "stale-unlock" + suffix(unfenced), Members: 1, TTL: 3 * time.Second, Unfenced: unfenced,
		Holders: []HolderSpec{
			{Name: "h1", Script: "stale-unlock", LockAt: 300 * time.Millisecond, ReleaseAt: 2 * time.Second,
				RetryAt: 3500 * time.Millisecond},
			{Name: "h2", LockAt: 4500 * time.Millisecond}},
		Schedule: faults.Schedule{Version: faults.Version, HealAt: 6 * time.Second,
			Events: Drop("h1", "m0", 1900*time.Millisecond, 800*time.Millisecond)},
		Duration: 7 * time.Second,
		OmitLessorOps: "the story's Unlocks are Deletes, which the lessor specification does not model (a get that " +
			"found the deleted key gone would read as its lease's expiry); P1 names etcd #22082"}
	s := e.story("etcd #22082: a committed Unlock whose response was dropped, retried after a relock on the same session",
		"h1 unlocks; the Delete commits and its response is dropped. h1 locks again on the same session (the same "+
			"key, a newer revision), then retries the first Unlock, which deletes the newer key. h2 takes the lock "+
			"while h1 still believes it holds it.", cfg,
		scenarios.Premise{Name: "h2 took the lock while h1's relock still believed",
			Holds: func(h *history.History) (bool, string) {
				b2 := firstBelief(h, "h2")
				var newer *history.BeliefInterval
				for i := range h.Beliefs {
					if b := &h.Beliefs[i]; b.Holder == "h1" && b2 != nil && b.Start < b2.Start && b.End > b2.Start {
						newer = b
					}
				}
				return newer != nil, fmt.Sprintf("h2 %s; h1 %s", beliefText(b2), beliefText(newer))
			}})
	s.Expect = map[string]checker.Status{"P1": checker.Violated, "P2": expectP2(unfenced)}
	return s
}

// LeaderPartition: three members, m0 the leader; h1 holds the mutex; at 3s
// m0 and h1 are both cut off. h1's own deadline ends its belief; m1 and m2
// elect a leader, which extends every lease on its promotion (etcd's
// lessor.Promote adds the election timeout to a full TTL), so h2 gets the
// lock much later than the TTL: measured against the lessor
// specification's bound (a lease expires a TTL after its last keepalive).
// The host reports whether m0 led when the run started.
func (e *Env) LeaderPartition() Story {
	ttl, cut := 3*time.Second, 3*time.Second
	cfg := Config{Story: "leader-partition", Members: 3, Leader: "m0", TTL: ttl, ElectionMs: 1000, TickMs: 100,
		Holders: []HolderSpec{{Name: "h1", LockAt: 500 * time.Millisecond},
			{Name: "h2", LockAt: 1500 * time.Millisecond, Members: []string{"m1", "m2"}}},
		Schedule: faults.Schedule{Version: faults.Version, HealAt: 10 * time.Second, Events: []faults.Event{
			{At: cut, Kind: faults.KindIsolate, Node: "m0"}, {At: cut, Kind: faults.KindIsolate, Node: "h1"}}},
		Duration: 15 * time.Second, ProbeLeases: []string{"m1", "m2"}}
	s := e.story("the leader partitioned away, a new leader elected: lease TTLs extended on promotion",
		"m0 leads and h1 holds the mutex; at 3 s m0 and h1 are cut off. m1 and m2 elect a leader, whose "+
			"promotion extends every lease; h2 gets the lock later than the TTL allows, safely.", cfg,
		scenarios.FaultWhileHolding("h1 believed when it was cut off", 0, []string{"h1"}, history.FaultIsolate),
		scenarios.Premise{Name: "h2 took the lock after the cut", Holds: func(h *history.History) (bool, string) {
			b2 := firstBelief(h, "h2")
			return b2 != nil && b2.Start > history.Time(cut), "h2 " + beliefText(b2)
		}})
	s.Expect = map[string]checker.Status{"P1": checker.OK, "P2": checker.OK}
	// Reproduced: the lease outlived the spec's bound (its TTL after the
	// last keepalive) by more than the election timeout.
	s.Shows = func(h *history.History) bool {
		last, b2 := lastKeepalive(h, "h1", history.Time(cut)), firstBelief(h, "h2")
		return last != history.Unknown && b2 != nil &&
			time.Duration(b2.Start-last)-ttl > time.Duration(cfg.ElectionMs)*time.Millisecond
	}
	s.Measure = func(h *history.History, r *Result) map[string]time.Duration {
		return leaderPartitionFigures(h, r, ttl, cut)
	}
	return s
}

// leaderPartitionFigures are LeaderPartition's figures.
func leaderPartitionFigures(h *history.History, r *Result, ttl, cut time.Duration) map[string]time.Duration {
	last := lastKeepalive(h, "h1", history.Time(cut))
	b2 := firstBelief(h, "h2")
	m := map[string]time.Duration{}
	if last == history.Unknown || b2 == nil {
		return m
	}
	m["h1's last keepalive reply"] = time.Duration(last)
	m["spec bound: h1's lease expires by"] = time.Duration(last) + ttl
	m["h2 acquired at"] = time.Duration(b2.Start)
	m["lease outlived its TTL by (h2's acquisition - last keepalive - TTL)"] = time.Duration(b2.Start-last) - ttl
	var gone time.Duration = -1
	var peak time.Duration
	for _, s := range r.Samples {
		if s.At > cut && s.Remaining > 0 && gone < 0 {
			peak = max(peak, s.Remaining)
		}
		if s.At > cut && s.Remaining < 0 && gone < 0 {
			gone = s.At
		}
	}
	if gone > 0 {
		m["probe: lease not found from"] = gone
	}
	if b2.LocalDeadline > 0 && history.Time(b2.LocalDeadline) <= b2.Start {
		m["h2's Lock returned past its session's own deadline by"] = time.Duration(b2.Start) - b2.LocalDeadline
	}
	if peak > 0 {
		m["probe: largest remaining TTL read after the cut"] = peak
	}
	return m
}

// lastKeepalive returns when holder's last keepalive (or grant) reply before
// t reached it.
func lastKeepalive(h *history.History, holder string, t history.Time) history.Time {
	last := history.Unknown
	for _, o := range h.AllOps() {
		if o.Client == holder && (o.Input.Kind == "keepalive" || o.Input.Kind == "grant") && o.Returned() && o.Return <= t {
			last = max(last, o.Return)
		}
	}
	return last
}

func beliefAt(h *history.History, holder string, t history.Time) *history.BeliefInterval {
	for i := range h.Beliefs {
		if b := &h.Beliefs[i]; b.Holder == holder && b.Start <= t && t < b.End {
			return b
		}
	}
	return nil
}

func firstBelief(h *history.History, holder string) *history.BeliefInterval {
	for i := range h.Beliefs {
		if b := &h.Beliefs[i]; b.Holder == holder {
			return b
		}
	}
	return nil
}

func beliefText(b *history.BeliefInterval) string {
	if b == nil {
		return "none"
	}
	return fmt.Sprintf("token %d from %v to %v (%s), own deadline %v", b.Token, b.Start, b.End, b.Reason, b.LocalDeadline)
}

// Reproduced reports whether out shows the story: every premise held and
// every expected verdict came.
func (s Story) Reproduced(out *scenarios.Outcome) bool {
	if st := out.Verdict(checker.PropertyPremise); st != "" && st != checker.OK {
		return false
	}
	for p, want := range s.Expect {
		if out.Verdict(p) != want {
			return false
		}
	}
	return s.Shows == nil || s.Shows(out.History)
}

// Repeat is a story run N times.
type Repeat struct {
	Story      Story
	Runs       []*scenarios.Outcome
	Reproduced int
	// Measures are each run's figures.
	Measures []map[string]time.Duration
}

// Rate is the reproduction rate, "k/n".
func (r *Repeat) Rate() string { return fmt.Sprintf("%d/%d", r.Reproduced, len(r.Runs)) }

// Repeat runs s with seeds 1 to n (under schedule instead of its own when
// it is set), each into its run directory, and counts how often it
// reproduced; each, if set, is told of every run.
func (e *Env) Repeat(ctx context.Context, s Story, n int, schedule *faults.Schedule, each func(out *scenarios.Outcome)) (*Repeat, error) {
	r := &Repeat{Story: s}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		out, res, err := e.Execute(ctx, s, seed, schedule)
		if err != nil {
			return r, err
		}
		r.Runs = append(r.Runs, out)
		if s.Reproduced(out) {
			r.Reproduced++
		}
		if s.Measure != nil {
			r.Measures = append(r.Measures, s.Measure(out.History, res))
		}
		if each != nil {
			each(out)
		}
	}
	return r, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// MeasureSummary prints each figure's min, median and max over the runs.
func MeasureSummary(ms []map[string]time.Duration) string {
	vals := map[string][]time.Duration{}
	for _, m := range ms {
		for k, v := range m {
			vals[k] = append(vals[k], v)
		}
	}
	var b strings.Builder
	for _, k := range sortedKeys(vals) {
		v := vals[k]
		slices.Sort(v)
		fmt.Fprintf(&b, "  %s: min %v, median %v, max %v (%d runs)\n", k, v[0].Round(time.Millisecond),
			v[len(v)/2].Round(time.Millisecond), v[len(v)-1].Round(time.Millisecond), len(v))
	}
	return b.String()
}
