//go:build measure

package redislock

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// TestMeasure runs every applicable scenario (those with optional workers without them)
// over seeds 1..REDISLOCK_SEEDS (default 200) for the implementation named
// by REDISLOCK_IMPL (default zoo/redislock) and prints, per scenario and
// property, how many seeds gave each verdict and the first seed of each
// non-ok verdict. Run with:
//
//	REDISLOCK_SEEDS=200 go test -tags measure -run TestMeasure -v -timeout 60m ./zoo/redislock/
func TestMeasure(t *testing.T) {
	last := uint64(200)
	if v := os.Getenv("REDISLOCK_SEEDS"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		last = n
	}
	impl := measuredImpl(t)
	only := os.Getenv("REDISLOCK_SCENARIO")
	for _, sc := range scenarios.Catalog() {
		if only != "" && sc.Name != only {
			continue
		}
		var u *scenarios.UnsupportedError
		if err := scenarios.Supports(sc, impl); errors.As(err, &u) {
			fmt.Printf("%-28s skipped: %s\n", sc.Name, u.Reason())
			continue
		}
		tl := tally{counts: map[string]map[checker.Status]int{}, first: map[string]uint64{}, detail: map[string]string{}}
		for seed := uint64(1); seed <= last; seed++ {
			out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: impl})
			if err != nil {
				t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
			}
			tl.add(out, seed)
		}
		tl.print(sc.Name)
	}
}

// measuredImpl returns the implementation REDISLOCK_IMPL names (default
// zoo/redislock).
func measuredImpl(t *testing.T) lease.Impl {
	impls := map[string]lease.Impl{"zoo/redislock": Impl(), Mutant().Name: Mutant()}
	for _, p := range []Persistence{AppendFsyncEverySec, NoPersistence} {
		impl := ImplWith(Options{Persistence: p})
		impls[impl.Name] = impl
	}
	name := os.Getenv("REDISLOCK_IMPL")
	if name == "" {
		name = "zoo/redislock"
	}
	impl, ok := impls[name]
	if !ok {
		t.Fatalf("unknown impl %q", name)
	}
	return impl
}

// tally counts verdicts per property over seeds, with the first seed and
// detail of each verdict that is not ok.
type tally struct {
	counts map[string]map[checker.Status]int
	first  map[string]uint64
	detail map[string]string
}

// note counts one verdict st of property prop at seed.
func (tl tally) note(prop string, st checker.Status, seed uint64, detail string) {
	if tl.counts[prop] == nil {
		tl.counts[prop] = map[checker.Status]int{}
	}
	tl.counts[prop][st]++
	k := prop + "/" + string(st)
	if _, seen := tl.first[k]; !seen && st != checker.OK {
		tl.first[k], tl.detail[k] = seed, detail
	}
}

// add counts one run. P2 that is violated only for the issuance gap
// (catalog_test.go) counts as "ok*"; token reuse is counted from beliefs.
func (tl tally) add(out *scenarios.Outcome, seed uint64) {
	if tok, a, b, ok := reusedToken(out); ok {
		tl.note("token-reuse", checker.Violated, seed, fmt.Sprintf("token %d believed by %s and by %s", tok, a, b))
	}
	for _, r := range out.Checks {
		st := r.Status
		switch {
		case r.AssumptionOnly():
			st = "assumption"
		case r.Property == "P2" && st == checker.Violated && len(fencingBreaches(r)) == 0:
			st = "ok*"
		}
		d := r.Summary
		if len(r.Violations) > 0 {
			d = r.Violations[0].Detail
		}
		tl.note(r.Property, st, seed, d)
	}
}

// print writes one line per scenario and one per verdict that is not ok.
func (tl tally) print(scenario string) {
	var props []string
	for p := range tl.counts {
		props = append(props, p)
	}
	sort.Strings(props)
	statuses := []checker.Status{checker.OK, "ok*", checker.Violated, checker.Unknown, "assumption"}
	var parts []string
	for _, p := range props {
		var sts []string
		for _, st := range statuses {
			if n := tl.counts[p][st]; n > 0 {
				s := fmt.Sprintf("%s %d", st, n)
				if fs, ok := tl.first[p+"/"+string(st)]; ok {
					s += fmt.Sprintf(" (seed %d)", fs)
				}
				sts = append(sts, s)
			}
		}
		parts = append(parts, p+": "+strings.Join(sts, ", "))
	}
	fmt.Printf("%-28s %s\n", scenario, strings.Join(parts, "; "))
	for _, p := range props {
		for _, st := range statuses[2:] {
			if d, ok := tl.detail[p+"/"+string(st)]; ok {
				fmt.Printf("    %s %s seed %d: %s\n", p, st, tl.first[p+"/"+string(st)], trim(d))
			}
		}
	}
}

// reusedToken reports a token that two different holders believed under
// on one resource: the fencing counter went back (P2 cannot see it until
// the harness records this protocol's token issuance).
func reusedToken(out *scenarios.Outcome) (uint64, string, string, bool) {
	type rt struct {
		res string
		tok uint64
	}
	by := map[rt]string{}
	for _, b := range out.History.Beliefs {
		k := rt{b.Resource, b.Token}
		if h, ok := by[k]; ok && h != b.Holder {
			return b.Token, h, b.Holder, true
		}
		by[k] = b.Holder
	}
	return 0, "", "", false
}

func trim(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// TestShrinkOne shrinks the fault schedule of one failing run and prints
// it: REDISLOCK_IMPL, REDISLOCK_SCENARIO (a catalogue name) and
// REDISLOCK_SEED choose it.
func TestShrinkOne(t *testing.T) {
	name := os.Getenv("REDISLOCK_SCENARIO")
	seed, err := strconv.ParseUint(os.Getenv("REDISLOCK_SEED"), 10, 64)
	if name == "" || err != nil {
		t.Skip("set REDISLOCK_SCENARIO and REDISLOCK_SEED")
	}
	impl := measuredImpl(t)
	var sc scenarios.Scenario
	for _, s := range scenarios.Catalog() {
		if s.Name == name {
			sc = s
		}
	}
	if sc.Name == "" {
		t.Fatalf("unknown scenario %q", name)
	}
	sh, err := scenarios.ShrinkSeed(sc, seed, scenarios.Options{Impl: impl}, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%s seed %d %s: %s %s: %d -> %d events\n", name, seed, impl.Name, sh.Target.Property,
		sh.Target.Summary, len(sh.Original.Events), len(sh.Schedule.Events))
	for _, e := range sh.Schedule.Events {
		fmt.Printf("  %+v\n", e)
	}
	out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: impl, Schedule: &sh.Schedule})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range out.History.Beliefs {
		fmt.Printf("  belief %s tok %d %v..%v %v\n", b.Holder, b.Token, b.Start, b.End, b.Reason)
	}
	for _, r := range out.Checks {
		if r.Status != checker.OK && r.Property != "P2" {
			fmt.Printf("  %s %s: %s\n", r.Property, r.Status, r.Summary)
			for _, v := range r.Violations {
				fmt.Printf("    %s\n", v.Detail)
				for _, e := range v.Evidence {
					fmt.Printf("      %s\n", e)
				}
			}
		}
	}
}
