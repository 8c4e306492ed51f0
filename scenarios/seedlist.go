package scenarios

import "github.com/leasesim/leasesim/internal/seeds"

// seedList is the seeds a Run runs, and the flag.Value of -leasesim.seeds:
// a seed set as every command reads it ("N", "A-B" or a list such as
// "1-5,9"; package internal/seeds, the one reader of seed sets). The zero
// seedList is unset.
type seedList struct {
	set seeds.Set
	ok  bool
}

// seedRange is the seedList of first to last, inclusive.
func seedRange(first, last uint64) seedList {
	return seedList{set: seeds.Set{First: first, Last: last}, ok: true}
}

// Set parses s, replacing the list.
func (l *seedList) Set(s string) error {
	set, err := seeds.Parse(s)
	if err != nil {
		return err
	}
	*l = seedList{set: set, ok: true}
	return nil
}

// String writes the list as Set reads it.
func (l *seedList) String() string {
	if l == nil || !l.ok {
		return ""
	}
	return l.set.String()
}

// each calls f with every seed in increasing order until f returns false.
func (l seedList) each(f func(seed uint64) bool) {
	for k := range l.set.Count() {
		if !f(l.set.At(k)) {
			return
		}
	}
}
