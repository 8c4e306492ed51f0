package mutants

import (
	"fmt"
	"strings"

	"github.com/leasesim/leasesim/lease"
)

// Prefix starts the name of every mutant, as in `--impl mutant/NAME`.
const Prefix = "mutant/"

// All returns every mutant, in the order `simrun list` shows them. Each
// call returns fresh values.
func All() []lease.Impl {
	return []lease.Impl{
		unfencedResource(),
		expiryFromReceipt(),
		noDriftMargin(),
		wallClockExpiry(),
		tokenNotPersisted(),
		noRestartGrace(),
		renewAfterExpiry(),
		silentKeepaliveDeath(),
		staleRelease(),
		unfencedCheckpoint(),
		lostCheckpointOnRestart(),
		earlyGrantorExpiry(),
		perKeyFencing(),
		readSeesRefusedWrite(),
	}
}

// Lookup returns the mutant called name ("mutant/unfenced-resource"). The
// error lists the known names.
func Lookup(name string) (lease.Impl, error) {
	for _, m := range All() {
		if m.Name == name {
			return m, nil
		}
	}
	return lease.Impl{}, fmt.Errorf("unknown mutant %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names returns the names of every mutant, in catalogue order.
func Names() []string {
	all := All()
	names := make([]string, len(all))
	for i, m := range all {
		names[i] = m.Name
	}
	return names
}

// mutant returns the correct implementation renamed: each mutant then
// replaces the one constructor it breaks.
func mutant(name, doc string) lease.Impl {
	impl := lease.Correct()
	impl.Name = Prefix + name
	impl.Doc = doc
	return impl
}
