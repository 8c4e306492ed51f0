package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
)

// Needs returns what the scenario needs of an implementation beyond
// acquiring, keeping and releasing a lease and writing under its token:
// workers checkpoint their tasks and perform an unfenced effect per unit;
// registrants attach registrations that readers list; holders that read
// the fenced store back need reads, unless the read-back is drawn per seed
// (LockLoad.Drawn); an explicit
// failpoint in the schedule must be reachable. A nemesis's failpoints are
// not needs: it draws only those the implementation reaches (see
// ForImpl).
func (s Scenario) Needs() lease.Capabilities {
	var c lease.Capabilities
	if s.Workers > 0 && !s.WorkersOptional {
		c.Checkpoints, c.SideEffects = true, true
	}
	if s.Registrants > 0 || s.Readers > 0 {
		c.Registrations = true
	}
	if s.Contenders > 0 && s.Lock.ReadBack && !s.Lock.Drawn {
		c.Reads = true
	}
	for _, e := range s.Faults.Events {
		if e.Kind == faults.KindFailpoint && !slices.Contains(c.Failpoints, e.Failpoint) {
			c.Failpoints = append(c.Failpoints, e.Failpoint)
		}
	}
	return c
}

// UnsupportedError says that an implementation lacks what a scenario
// needs: the scenario is skipped for it, never failed.
type UnsupportedError struct {
	Scenario, Impl string
	// Missing are the capabilities the scenario needs and the
	// implementation does not declare, as lease.Capabilities names them
	// ("checkpoints", "failpoint before-write").
	Missing []string
	// Why says what in the scenario needs them.
	Why []string
}

// Error says what the scenario needs that the implementation does not
// declare, and why.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("scenario %s needs %s, which %s does not declare (lease.Impl.Capabilities): %s",
		e.Scenario, strings.Join(e.Missing, ", "), e.Impl, strings.Join(e.Why, "; "))
}

// Reason is the skip reason in one line, without the scenario's name.
func (e *UnsupportedError) Reason() string {
	return fmt.Sprintf("needs %s (%s)", strings.Join(e.Missing, ", "), strings.Join(e.Why, "; "))
}

// Supports returns nil if impl declares everything sc needs, else an
// *UnsupportedError naming what is missing and why the scenario needs it.
func Supports(sc Scenario, impl lease.Impl) error {
	need, have := sc.Needs(), impl.Capabilities
	e := &UnsupportedError{Scenario: sc.Name, Impl: impl.Name}
	miss := func(needed, declared bool, name, why string) {
		if needed && !declared {
			e.Missing = append(e.Missing, name)
			e.Why = append(e.Why, why)
		}
	}
	miss(need.Checkpoints, have.Checkpoints, "checkpoints", fmt.Sprintf("%d workers checkpoint their tasks", sc.Workers))
	miss(need.SideEffects, have.SideEffects, "side effects", "workers perform an unfenced effect per unit")
	miss(need.Registrations, have.Registrations, "registrations", "registrants attach keys to their leases and readers list them")
	miss(need.Reads, have.Reads, "reads", "holders read the fenced store back before they write")
	for _, fp := range need.Failpoints {
		miss(true, reaches(impl, fp), "failpoint "+fp, "the schedule arms "+fp)
	}
	if n, why := sc.membersNeeded(); n > max(impl.Members, 1) {
		miss(true, false, fmt.Sprintf("a replicated lease store of %d members", n), why)
	}
	if len(e.Missing) == 0 {
		return nil
	}
	return e
}

// ForImpl returns sc as it runs against impl: optional workers are left
// out when impl lacks checkpoints or side effects, a drawn lock load writes
// one key blind when impl lacks reads (Adaptations says both), and its
// nemesis draws only the failpoints impl reaches (a failpoint it
// never reaches would be armed and never hit), and no failpoint faults at
// all if it reaches none of the nemesis's. For an implementation that
// supports and reaches everything, such as leasesim's own, sc is
// unchanged, and so is every draw.
func (sc Scenario) ForImpl(impl lease.Impl) Scenario {
	if workersLeftOut(sc, impl) {
		sc.Workers, sc.Tasks, sc.TaskSource = 0, nil, nil
	}
	if sc.Contenders > 0 && sc.Lock.blindFor(impl) {
		sc.Lock = sc.Lock.blind()
	}
	if sc.Nemesis == nil || !slices.Contains(sc.Nemesis.Kinds, faults.KindFailpoint) {
		return sc
	}
	all := sc.Nemesis.Failpoints
	if len(all) == 0 {
		all = nemesisFailpoints()
	}
	fps := slices.DeleteFunc(slices.Clone(all), func(fp string) bool { return !reaches(impl, fp) })
	if len(fps) == len(all) {
		return sc
	}
	nem := *sc.Nemesis
	nem.Failpoints = fps
	if len(fps) == 0 {
		nem.Kinds = slices.DeleteFunc(slices.Clone(nem.Kinds), func(k faults.Kind) bool { return k == faults.KindFailpoint })
	}
	sc.Nemesis = &nem
	return sc
}

// nemesisFailpoints are the failpoints a nemesis arms when its scenario
// names none: the ones leasesim's own implementation reaches, and the event
// triggers every implementation reaches, so that a swarm pauses and crashes
// nodes at their message boundaries too, on purpose rather than by chance.
func nemesisFailpoints() []string {
	return append(slices.Clone(lease.AllCapabilities().Failpoints), Triggers()...)
}

// reaches reports whether impl reaches the failpoint fp: one it declares,
// or an event trigger, which the wiring reaches for every implementation.
func reaches(impl lease.Impl, fp string) bool {
	return slices.Contains(impl.Capabilities.Failpoints, fp) || slices.Contains(Triggers(), fp)
}

// Adaptations says how sc runs differently against impl than the catalogue
// describes it, one line each: optional workers left out for an
// implementation without checkpoints or side effects, and a drawn lock
// load that writes one key blind for one without reads; none for an
// implementation that supports everything the scenario uses.
func Adaptations(sc Scenario, impl lease.Impl) []string {
	var out []string
	if workersLeftOut(sc, impl) {
		c := impl.Capabilities
		var lacks []string
		if !c.Checkpoints {
			lacks = append(lacks, "checkpoints")
		}
		if !c.SideEffects {
			lacks = append(lacks, "side effects")
		}
		out = append(out, fmt.Sprintf("ran without its %d workers and their tasks: %s does not declare %s",
			sc.Workers, impl.Name, strings.Join(lacks, " or ")))
	}
	if sc.Contenders > 0 && sc.Lock.blindFor(impl) {
		out = append(out, blindAdaptation(sc.Lock, impl))
	}
	return out
}

// workersLeftOut reports whether sc's optional workers are left out
// against impl, which lacks checkpoints or side effects.
func workersLeftOut(sc Scenario, impl lease.Impl) bool {
	c := impl.Capabilities
	return sc.WorkersOptional && sc.Workers > 0 && !(c.Checkpoints && c.SideEffects)
}

// ordinal is n as an English ordinal ("3rd").
func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}

// CatalogFor returns the catalogue entries impl supports (Supports), in
// catalogue order: what a test or a tool runs against one implementation
// without skipping.
func CatalogFor(impl lease.Impl) []Scenario {
	var out []Scenario
	for _, sc := range Catalog() {
		if Supports(sc, impl.OrCorrect()) == nil {
			out = append(out, sc)
		}
	}
	return out
}
