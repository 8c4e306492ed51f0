package explore

import (
	"cmp"
	"slices"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
)

// Bias of the aim mutation toward protocol moments the runs have not hit.
const (
	// momentScale is the weight of a moment no run has hit yet, while it
	// is still worth trying; a moment hit in n runs weighs 1 +
	// momentScale/(1+n).
	momentScale = 64
	// momentTries is how many runs may arm a moment without its firing
	// before the search takes it for one the scenario does not reach, and
	// weighs it 1.
	momentTries = 3
)

// Moment is a protocol moment on a node: a failpoint (an event trigger
// such as on-reply, or one the implementation marks) reached there.
type Moment struct {
	Failpoint string `json:"failpoint"`
	Node      string `json:"node"`
}

// Moments returns the protocol moments at which a failpoint fired in h,
// each once, in order of failpoint and node: what Run.Moments holds on
// every host.
func Moments(h *history.History) []Moment {
	var out []Moment
	for i := range h.Faults {
		if f := &h.Faults[i]; f.Kind == history.FaultFailpointHit {
			out = append(out, Moment{f.Failpoint(), f.Node()})
		}
	}
	slices.SortFunc(out, compareMoments)
	return slices.Compact(out)
}

func compareMoments(a, b Moment) int {
	return cmp.Or(cmp.Compare(a.Failpoint, b.Failpoint), cmp.Compare(a.Node, b.Node))
}

// momentCounts counts, for one arm, the runs that armed each protocol moment
// and the runs in which it fired.
type momentCounts struct {
	armed, hit map[Moment]int
}

func newMomentCounts() *momentCounts {
	return &momentCounts{armed: map[Moment]int{}, hit: map[Moment]int{}}
}

// add counts a run: the moments its schedule armed, and those at which a
// failpoint fired (Run.Moments).
func (m *momentCounts) add(s faults.Schedule, fired []Moment) {
	var armed []Moment
	for _, e := range s.Events {
		if mo := (Moment{e.Failpoint, e.Node}); e.Kind == faults.KindFailpoint && !slices.Contains(armed, mo) {
			armed = append(armed, mo)
		}
	}
	for _, mo := range armed {
		m.armed[mo]++
	}
	for _, mo := range fired {
		m.hit[mo]++
	}
}

// weight is how strongly the aim mutation favours moment mo: momentScale
// while no run has hit it and fewer than momentTries armed it, 1 once
// that many armed it and it never fired, and 1 + momentScale/(1+n) once
// n runs hit it.
func (m *momentCounts) weight(mo Moment) int {
	switch n := m.hit[mo]; {
	case n > 0:
		return 1 + momentScale/(1+n)
	case m.armed[mo] < momentTries:
		return momentScale
	}
	return 1
}
