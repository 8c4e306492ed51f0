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

// TestMeasure runs every applicable scenario (and the lock-only variants)
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
	only := os.Getenv("REDISLOCK_SCENARIO")
	for _, sc := range append(scenarios.Catalog(), lockOnlyVariants()...) {
		if only != "" && sc.Name != only {
			continue
		}
		if err := scenarios.Supports(sc, impl); err != nil {
			var u *scenarios.UnsupportedError
			if errors.As(err, &u) {
				fmt.Printf("%-28s skipped: %s\n", sc.Name, u.Reason())
				continue
			}
			t.Fatal(err)
		}
		counts := map[string]map[checker.Status]int{}
		first := map[string]uint64{}
		detail := map[string]string{}
		for seed := uint64(1); seed <= last; seed++ {
			out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: impl})
			if err != nil {
				t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
			}
			if tok, a, b, ok := reusedToken(out); ok {
				if counts["token-reuse"] == nil {
					counts["token-reuse"] = map[checker.Status]int{}
				}
				counts["token-reuse"][checker.Violated]++
				if _, seen := first["token-reuse/violated"]; !seen {
					first["token-reuse/violated"] = seed
					detail["token-reuse/violated"] = fmt.Sprintf("token %d believed by %s and by %s", tok, a, b)
				}
			}
			for _, r := range out.Checks {
				key := r.Property
				st := r.Status
				if r.AssumptionOnly() {
					st = "assumption"
				}
				if key == "P2" && st == checker.Violated && len(fencingBreaches(r)) == 0 {
					st = "ok*" // ok but for the issuance gap (catalog_test.go)
				}
				if counts[key] == nil {
					counts[key] = map[checker.Status]int{}
				}
				counts[key][st]++
				fk := key + "/" + string(st)
				if st != checker.OK {
					if _, seen := first[fk]; !seen {
						first[fk] = seed
						d := r.Summary
						if len(r.Violations) > 0 {
							d = r.Violations[0].Detail
						}
						detail[fk] = d
					}
				}
			}
		}
		var props []string
		for p := range counts {
			props = append(props, p)
		}
		sort.Strings(props)
		var parts []string
		for _, p := range props {
			var sts []string
			for _, st := range []checker.Status{checker.OK, "ok*", checker.Violated, checker.Unknown, "assumption"} {
				if n := counts[p][st]; n > 0 {
					s := fmt.Sprintf("%s %d", st, n)
					if fs, ok := first[p+"/"+string(st)]; ok {
						s += fmt.Sprintf(" (seed %d)", fs)
					}
					sts = append(sts, s)
				}
			}
			parts = append(parts, p+": "+strings.Join(sts, ", "))
		}
		fmt.Printf("%-28s %s\n", sc.Name, strings.Join(parts, "; "))
		for _, p := range props {
			for _, st := range []checker.Status{checker.Violated, checker.Unknown, "assumption"} {
				if d, ok := detail[p+"/"+string(st)]; ok {
					fmt.Printf("    %s %s seed %d: %s\n", p, st, first[p+"/"+string(st)], trim(d))
				}
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
// it: REDISLOCK_IMPL, REDISLOCK_SCENARIO (a catalogue name or a lock-only
// variant) and REDISLOCK_SEED choose it.
func TestShrinkOne(t *testing.T) {
	name := os.Getenv("REDISLOCK_SCENARIO")
	seed, err := strconv.ParseUint(os.Getenv("REDISLOCK_SEED"), 10, 64)
	if name == "" || err != nil {
		t.Skip("set REDISLOCK_SCENARIO and REDISLOCK_SEED")
	}
	impls := map[string]lease.Impl{"zoo/redislock": Impl(), Mutant().Name: Mutant()}
	for _, p := range []Persistence{AppendFsyncEverySec, NoPersistence} {
		impl := ImplWith(Options{Persistence: p})
		impls[impl.Name] = impl
	}
	impl := impls[os.Getenv("REDISLOCK_IMPL")]
	if impl.Name == "" {
		impl = Impl()
	}
	var sc scenarios.Scenario
	for _, s := range append(scenarios.Catalog(), lockOnlyVariants()...) {
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
