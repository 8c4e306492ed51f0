package scenarios

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/lease"
)

// mutantPrefix starts the name of every implementation in package mutants,
// which `simrun --impl` knows. Package mutants' tests import this package,
// so this one cannot import mutants; a test here holds the two equal.
const mutantPrefix = "mutant/"

// zooPrefix starts the name of every implementation of the zoo (zoo/*),
// which `simrun --impl` knows too; cmd/simrun's tests hold every name it
// lists to one of these prefixes or "correct".
const zooPrefix = "zoo/"

// ReplayCommand returns the simrun command that reproduces this run, named
// as the CLI was invoked (see internal/repro). It runs only for a built-in
// scenario and implementation; a Go test prints a go test line as well.
func (o *Outcome) ReplayCommand() string {
	return simrunLine(o.Scenario, o.Impl, o.Seed, "")
}

// simrunLine is `simrun run --scenario S --seed N [--impl I] [--schedule F]`.
func simrunLine(scenario, impl string, seed uint64, schedule string) string {
	args := []string{"run", "--scenario", scenario, "--seed", strconv.FormatUint(seed, 10)}
	if impl != "" && impl != lease.Correct().Name {
		args = append(args, "--impl", impl)
	}
	if schedule != "" {
		args = append(args, "--schedule", schedule)
	}
	return repro.Simrun(args...)
}

// replayLines are the lines that reproduce one failing test, each runnable
// as printed from the module root: always a go test line for the running
// (sub)test, and a simrun line when the CLI knows the scenario and the
// implementation.
type replayLines struct {
	goTest string
	simrun string // empty when the CLI cannot run it
	shrink string // the go test line with shrinking on; empty when nothing was violated
}

// String writes the lines as a failure message ends.
func (l replayLines) String() string {
	var b strings.Builder
	b.WriteString("  replay: " + l.goTest)
	if l.simrun != "" {
		b.WriteString("\n      or: " + l.simrun)
	}
	if l.shrink != "" {
		b.WriteString("\n  shrink: " + l.shrink)
	}
	return b.String()
}

// linesFor returns the lines that re-run t, the test that ran out, from the
// module root, and, when out violated a property, the line that re-runs it
// with shrinking on (ShrinkEnv). schedule, when not empty, is the file (relative to the
// module root) of the fault schedule to run instead of the scenario's own.
// cli says whether simrun knows out's scenario and implementation. When the
// command line replaced the test's seeds, the go test line selects the seed
// the same way, or its subtest would not exist.
func linesFor(t testing.TB, out *Outcome, cli bool, schedule string) replayLines {
	var l replayLines
	pkg, err := repro.PackageDir()
	if err != nil {
		l.goTest = "(no go test line: " + err.Error() + ")"
	} else {
		var env []string
		if schedule != "" {
			env = append(env, repro.Assign(ScheduleEnv, schedule))
		}
		if cmdline.seeds.ok {
			env = append(env, repro.Assign(SeedsEnv, strconv.FormatUint(out.Seed, 10)))
		}
		l.goTest = strings.Join(append(env, repro.GoTest(t.Name(), pkg)), " ")
		if len(out.Violated()) > 0 && !cmdline.shrink {
			l.shrink = strings.Join(append([]string{repro.Assign(ShrinkEnv, "1")}, env...), " ") + " " +
				repro.GoTest(t.Name(), pkg)
		}
	}
	if cli {
		l.simrun = simrunLine(out.Scenario, out.Impl, out.Seed, schedule)
	}
	return l
}

// cliKnows reports whether `simrun run` runs exactly what Run runs: sc is
// a catalogue scenario unchanged, the implementation is the correct one or
// a mutant, and nothing else differs from the CLI's defaults (a schedule
// file is passed separately).
func cliKnows(sc Scenario, opts Options) bool {
	builtin, err := Lookup(sc.Name)
	if err != nil || !sameValue(reflect.ValueOf(sc), reflect.ValueOf(builtin)) {
		return false
	}
	if opts.Schedule != nil || !reflect.ValueOf(opts.Check).IsZero() || opts.Observer != nil {
		return false
	}
	return cliKnowsImpl(opts.Impl)
}

// cliKnowsImpl reports whether --impl names impl: the zero Impl and the
// correct one (same constructors), or a mutant.
func cliKnowsImpl(impl lease.Impl) bool {
	if impl.NewGrantor == nil {
		return true
	}
	if knownByPrefix(impl.Name) {
		return true
	}
	c := lease.Correct()
	same := func(a, b any) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }
	return impl.Name == c.Name && same(impl.NewGrantor, c.NewGrantor) &&
		same(impl.NewHolder, c.NewHolder) && same(impl.NewResource, c.NewResource)
}

// cliKnowsNames is cliKnows for Report, which has only the outcome: it
// takes the names at their word.
func cliKnowsNames(out *Outcome) bool {
	if _, err := Lookup(out.Scenario); err != nil || out.Host == HostProcess {
		return false
	}
	return out.Impl == "" || out.Impl == lease.Correct().Name || knownByPrefix(out.Impl)
}

// knownByPrefix reports whether simrun's --impl knows name by its prefix:
// a mutant or an implementation of the zoo.
func knownByPrefix(name string) bool {
	return strings.HasPrefix(name, mutantPrefix) || strings.HasPrefix(name, zooPrefix)
}

// sameValue is reflect.DeepEqual, except that two functions are the same
// when they run the same code (reflect.DeepEqual calls no two non-nil
// functions equal, and scenarios hold some, premises for example). Two
// closures of one function literal that captured different values look the
// same; the scenarios' closures come with a name that says what they
// captured.
func sameValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() || a.IsValid() && a.Type() != b.Type() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	switch a.Kind() {
	case reflect.Func:
		return a.IsNil() == b.IsNil() && (a.IsNil() || a.Pointer() == b.Pointer())
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Map:
		if a.Len() != b.Len() || a.IsNil() != b.IsNil() {
			return false
		}
		it := a.MapRange() // order does not matter: every key is looked up
		for it.Next() {
			if !sameValue(it.Value(), b.MapIndex(it.Key())) {
				return false
			}
		}
		return true
	default:
		return a.Equal(b)
	}
}
