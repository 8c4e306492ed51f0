package explore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// armed is a schedule that pauses each moment's node at its failpoint.
func armed(moments ...Moment) faults.Schedule {
	s := faults.Schedule{Version: faults.Version, HealAt: time.Minute}
	for i, mo := range moments {
		s.Events = append(s.Events, faults.Event{At: time.Duration(i+1) * time.Second, Kind: faults.KindFailpoint,
			Node: mo.Node, Failpoint: mo.Failpoint, Action: faults.ActionPause, Duration: time.Second})
	}
	return s
}

var onReply = Moment{scenarios.TriggerOnReply, "h1"}

// A moment weighs momentScale until a run hits it or momentTries runs
// armed it in vain, and less the more runs hit it.
func TestMomentWeight(t *testing.T) {
	for _, tt := range []struct {
		name       string
		armed, hit int
		want       int
	}{
		{"never armed", 0, 0, momentScale},
		{"armed in two runs, never fired", 2, 0, momentScale},
		{"armed in three runs, never fired", 3, 0, 1},
		{"hit in one run", 1, 1, 1 + momentScale/2},
		{"hit in three runs", 5, 3, 1 + momentScale/4},
		{"hit in 63 runs", 63, 63, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMomentCounts()
			for i := range tt.armed {
				var fired []Moment
				if i < tt.hit {
					fired = []Moment{onReply}
				}
				m.add(armed(onReply, onReply), fired) // armed twice in one run counts once
			}
			assert.Equal(t, tt.want, m.weight(onReply))
		})
	}
}

// The aim mutation draws a moment no run has hit far more often than one
// hit in 63 runs, and keeps a share for the latter.
func TestAimFavoursUnhitMoments(t *testing.T) {
	m := newMomentCounts()
	for range 63 {
		m.add(armed(onReply), []Moment{onReply})
	}
	mut := newMutator(Vocabulary{Targets: []string{"h1"},
		Failpoints: []string{scenarios.TriggerOnReply, scenarios.TriggerAfterRequest}}, newRand(1), m)
	counts := map[Moment]int{}
	for range 1000 {
		counts[mut.moment(mut.voc.Targets)]++
	}
	assert.Greater(t, counts[Moment{scenarios.TriggerAfterRequest, "h1"}], 900, "%v", counts)
	assert.Positive(t, counts[onReply], "%v", counts)
}

// Run.Moments on the event host are the moments at which a failpoint
// fired: a holder's pause as a reply reaches it fires; a pause of the
// grantor after it writes to the fenced store, which it never does, does
// not.
func TestMomentsOfAnEventRun(t *testing.T) {
	sc, err := scenarios.Lookup("kleppmann-gc-pause")
	require.NoError(t, err)
	h, err := EventHost(sc, lease.Impl{})
	require.NoError(t, err)
	holder := Moment{scenarios.TriggerOnReply, "h1"}
	grantor := Moment{scenarios.TriggerAfterWrite, "grantor"}
	run, err := h.Run(Input{Seed: 1, Schedule: armed(holder, grantor)})
	require.NoError(t, err)
	assert.Equal(t, []Moment{holder}, run.Moments)
}
