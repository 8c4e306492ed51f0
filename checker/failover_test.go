package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
)

// A store whose grants are not acquire replies (the lessor: grant, create
// the key, keep alive) shows its grants as beliefs: the failover ends at
// the next holder's belief, or at the cut holder's own belief regained
// after the cut, with the same definition as leasesim's acquire replies.
func TestMeasureFailoverFromBeliefs(t *testing.T) {
	// h1 believes token 5 from 0 to 5s; a fault cuts it off at 2s; h2
	// believes token 9 from 7.5s.
	lessor := func() *hb {
		b := newHistory().belief("h1", "lock", 5, at(0), at(5000)).belief("h2", "lock", 9, at(7500), at(20_000))
		b.h.Spec = "lessor"
		return b
	}
	tests := []struct {
		name       string
		h          *hb
		want       []time.Duration
		unresolved int
	}{
		{"no fault", lessor(), nil, 0},
		{"holder crash: the next holder's belief", lessor().fault(history.FaultCrash, "h1", at(2000), at(30_000)),
			[]time.Duration{5500 * time.Millisecond}, 0},
		{"holder isolated, regains its own belief first", lessor().fault(history.FaultIsolate, "h1", at(2000), at(6000)).
			belief("h1", "lock", 5, at(6500), at(7000)), []time.Duration{4500 * time.Millisecond}, 0},
		{"another holder crashed", lessor().fault(history.FaultCrash, "h3", at(2000), at(30_000)), nil, 0},
		{"nobody believes again", func() *hb {
			b := newHistory().belief("h1", "lock", 5, at(0), at(5000)).fault(history.FaultCrash, "h1", at(2000), at(30_000))
			b.h.Spec = "lessor"
			return b
		}(), nil, 1},
		{"a belief before the cut does not end it", lessor().belief("h3", "lock", 7, at(1000), at(1500)).
			fault(history.FaultCrash, "h1", at(2000), at(30_000)), []time.Duration{5500 * time.Millisecond}, 0},
		// On leasesim's store a belief's token comes from an acquire: the
		// grant is the acquire, processed at the grantor, not the belief
		// that follows its reply.
		{"a token an acquire issued is the acquire's", newHistory().
			acquire("h1", "lock", 1, at(0)).belief("h1", "lock", 1, at(0), at(5000)).
			acquire("h2", "lock", 2, at(7500)).belief("h2", "lock", 2, at(7600), at(9000)).
			fault(history.FaultCrash, "h1", at(2000), at(30_000)), []time.Duration{5500 * time.Millisecond}, 0},
		// A history file's windows need not be in order of start: the
		// failover runs from the earliest cut within the belief.
		{"fault windows out of order", lessor().fault(history.FaultIsolate, "h1", at(3000), at(4000)).
			fault(history.FaultIsolate, "h1", at(2000), at(2500)), []time.Duration{5500 * time.Millisecond}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Measure(tt.h.build())
			assert.Equal(t, tt.want, m.FailoverSamples)
			assert.Equal(t, tt.unresolved, m.FailoversUnresolved)
		})
	}
}
