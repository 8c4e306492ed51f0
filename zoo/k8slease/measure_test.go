//go:build measure

package k8slease

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// TestMeasure runs every catalogue scenario the implementation supports
// over seeds 1..K8SLEASE_SEEDS (default 200) for K8SLEASE_IMPL ("impl",
// "unfenced" or "mutant"; default "impl") and prints, per scenario and
// property, how many seeds gave each verdict, with the first seed of each
// verdict other than ok and what it said. RESULTS.md is written from it:
//
//	K8SLEASE_IMPL=unfenced go test -tags measure -run TestMeasure -v ./zoo/k8slease/
func TestMeasure(t *testing.T) {
	last := uint64(200)
	if v := os.Getenv("K8SLEASE_SEEDS"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("K8SLEASE_SEEDS: %v", err)
		}
		last = n
	}
	impls := map[string]lease.Impl{"": Impl(), "impl": Impl(), "unfenced": Unfenced(), "mutant": Mutant()}
	impl, ok := impls[os.Getenv("K8SLEASE_IMPL")]
	if !ok {
		t.Fatalf("K8SLEASE_IMPL=%q: want impl, unfenced or mutant", os.Getenv("K8SLEASE_IMPL"))
	}
	fmt.Printf("%s, seeds 1-%d\n", impl.Name, last)
	for _, sc := range scenarios.Catalog() {
		var u *scenarios.UnsupportedError
		if err := scenarios.Supports(sc, impl); errors.As(err, &u) {
			fmt.Printf("%-22s skipped: %s\n", sc.Name, u.Reason())
			continue
		}
		m := newMeasurement()
		for seed := uint64(1); seed <= last; seed++ {
			out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: impl})
			if err != nil {
				t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
			}
			m.add(seed, out.Checks)
		}
		m.print(sc.Name)
	}
}

// measurement counts verdicts per property over seeds.
type measurement struct {
	props  []string                          // in first-seen order
	counts map[string]map[checker.Status]int // looked up; printed in props order
	first  map[string]string                 // property/status: "seed N: what it said"
	// marginMin is P1's smallest margin between beliefs over the seeds,
	// and the seed it came from.
	marginMin     *time.Duration
	marginMinSeed uint64
}

func newMeasurement() *measurement {
	return &measurement{counts: make(map[string]map[checker.Status]int), first: make(map[string]string)}
}

// verdict is the result's status, with an overlap under drift beyond rho
// counted apart from other unknowns.
func verdict(r checker.Result) checker.Status {
	if r.AssumptionOnly() {
		return "assumption-exceeded"
	}
	return r.Status
}

func (m *measurement) add(seed uint64, checks []checker.Result) {
	for _, r := range checks {
		if r.Property == "P1" && r.MarginMin != nil && (m.marginMin == nil || *r.MarginMin < *m.marginMin) {
			m.marginMin, m.marginMinSeed = r.MarginMin, seed
		}
		if m.counts[r.Property] == nil {
			m.counts[r.Property] = make(map[checker.Status]int)
			m.props = append(m.props, r.Property)
		}
		st := verdict(r)
		m.counts[r.Property][st]++
		key := r.Property + "/" + string(st)
		if _, seen := m.first[key]; st != checker.OK && !seen {
			what := r.Summary
			if len(r.Violations) > 0 {
				what = r.Violations[0].Detail
			}
			m.first[key] = fmt.Sprintf("seed %d: %s", seed, what)
		}
	}
}

func (m *measurement) print(scenario string) {
	statuses := []checker.Status{checker.OK, checker.Violated, checker.Unknown, "assumption-exceeded"}
	var cells []string
	for _, p := range m.props {
		var parts []string
		for _, st := range statuses {
			if n := m.counts[p][st]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", st, n))
			}
		}
		cells = append(cells, p+": "+strings.Join(parts, ", "))
	}
	if m.marginMin != nil {
		cells = append(cells, fmt.Sprintf("P1 margin min %v (seed %d)", m.marginMin.Round(time.Millisecond), m.marginMinSeed))
	}
	fmt.Printf("%-22s %s\n", scenario, strings.Join(cells, "; "))
	for _, p := range m.props {
		for _, st := range statuses[1:] {
			if what, ok := m.first[p+"/"+string(st)]; ok {
				fmt.Printf("    %s %s, first %s\n", p, st, what)
			}
		}
	}
}

// pauseMargin is Kleppmann's story with the pause where it hurts most: the
// leader's renewals stop reaching the API server at 5 s (a one-way
// partition), so its belief ends at its deadline, between 7.67 s and
// 8.33 s; at 7.55 s the next write (every 100 ms), decided while the lease
// is still valid and just before the deadline, freezes h1 for pause. The
// other candidate can take over no earlier than LeaseDuration after the
// last renewal it saw, so the stale write lands after a newer token only
// if the pause outlasts the slack, at least LeaseDuration − RenewDeadline.
func pauseMargin(pause time.Duration) scenarios.Scenario {
	sc := scenarios.KleppmannGCPause()
	sc.Name = "pause-margin"
	sc.Lock.WriteEvery = 100 * time.Millisecond
	sc.Faults = faults.Schedule{Events: []faults.Event{
		{At: 5 * time.Second, Kind: faults.KindPartitionOneWay, From: "h1", To: scenarios.GrantorNode},
		{At: 7550 * time.Millisecond, Kind: faults.KindFailpoint, Node: "h1", Failpoint: lease.FailpointBeforeWrite,
			Action: faults.ActionPause, Duration: pause},
	}}
	sc.Premises = []scenarios.Premise{scenarios.FailpointHit("h1", lease.FailpointBeforeWrite)}
	return sc
}

// TestPauseMargin runs pauseMargin for pauses around LeaseDuration −
// RenewDeadline (1.67 s at the catalogue's 5 s TTL), over seeds
// 1..K8SLEASE_SEEDS (default 200), with the fenced store and without, and
// prints per pause how many seeds ended with h1's stale write refused
// (fenced) and accepted after a newer token (unfenced), and P1, P2 and
// P3's verdicts.
func TestPauseMargin(t *testing.T) {
	last := uint64(200)
	if v := os.Getenv("K8SLEASE_SEEDS"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("K8SLEASE_SEEDS: %v", err)
		}
		last = n
	}
	for _, impl := range []lease.Impl{Impl(), Unfenced()} {
		fmt.Printf("%s, seeds 1-%d\n", impl.Name, last)
		for _, pause := range []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond,
			2 * time.Second, 2500 * time.Millisecond, 3 * time.Second, 4 * time.Second} {
			m := newMeasurement()
			refused, stale := 0, 0
			for seed := uint64(1); seed <= last; seed++ {
				out, err := scenarios.Execute(pauseMargin(pause), seed, scenarios.Options{Impl: impl})
				if err != nil {
					t.Fatalf("pause %v seed %d: %v", pause, seed, err)
				}
				m.add(seed, out.Checks)
				r, s := staleWrites(out)
				refused, stale = refused+min(r, 1), stale+min(s, 1)
			}
			fmt.Printf("  pause %-5v refused in %3d, accepted after a newer token in %3d;", pause, refused, stale)
			m.print("")
		}
	}
}

// staleWrites counts the writes of h1 under token 1 that the store
// refused, and those it accepted after a write under a higher token.
func staleWrites(out *scenarios.Outcome) (refused, accepted int) {
	var highest uint64
	for _, op := range out.History.AllOps() {
		if op.Server != scenarios.StoreNode || op.Input.Kind != "write" {
			continue
		}
		switch {
		case op.Output.Err != "":
			refused++
		case op.Input.Token < highest:
			accepted++
		}
		highest = max(highest, op.Input.Token)
	}
	return refused, accepted
}
