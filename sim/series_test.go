package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// A Series runs its events in the order that At calls made when it was
// created would have had, among every other event, ties included.
func TestSeriesKeepsTheOrderOfAt(t *testing.T) {
	times := []sim.Time{10, 20, 20, 30}
	tests := []struct {
		name   string
		series bool
	}{{"At", false}, {"Series", true}}
	var want []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := sim.New(sim.Config{})
			var got []string
			note := func(s string) func() { return func() { got = append(got, fmt.Sprintf("%s@%d", s, w.Now())) } }
			w.At(20, note("before"))
			if tt.series {
				w.Series(len(times), func(i int) sim.Time { return times[i] }, func(i int) {
					note(fmt.Sprint("s", i))()
					w.At(w.Now(), note(fmt.Sprint("queued-by-s", i)))
				})
			} else {
				for i, at := range times {
					w.At(at, func() {
						note(fmt.Sprint("s", i))()
						w.At(w.Now(), note(fmt.Sprint("queued-by-s", i)))
					})
				}
			}
			w.At(20, note("after"))
			w.At(30, note("after"))
			require.NoError(t, w.RunFor(time.Second).Err)
			if want == nil {
				want = got
				assert.Equal(t, []string{"s0@10", "queued-by-s0@10", "before@20", "s1@20", "s2@20", "after@20",
					"queued-by-s1@20", "queued-by-s2@20", "s3@30", "after@30", "queued-by-s3@30"}, got)
				return
			}
			assert.Equal(t, want, got, "a Series runs in the order of At")
		})
	}
}

// Only the next event of a Series is queued: ten thousand of them fit a
// queue limited to ten.
func TestSeriesQueuesOneAtATime(t *testing.T) {
	const n = 10_000
	w := sim.New(sim.Config{Limits: sim.Limits{Queue: 10}})
	ran := 0
	w.Series(n, func(i int) sim.Time { return sim.Time(i) * sim.Time(time.Millisecond) }, func(int) { ran++ })
	res := w.RunFor(time.Hour)
	require.NoError(t, res.Err)
	assert.Equal(t, n, ran)

	w = sim.New(sim.Config{Limits: sim.Limits{Queue: 10}})
	for i := range n {
		w.At(sim.Time(i)*sim.Time(time.Millisecond), func() {})
	}
	assert.Error(t, w.RunFor(time.Hour).Err, "the same events queued at once exceed the limit")
}

func TestSeriesRefusesTimeGoingBack(t *testing.T) {
	w := sim.New(sim.Config{})
	times := []sim.Time{5, 3}
	w.Series(2, func(i int) sim.Time { return times[i] }, func(int) {})
	assert.PanicsWithValue(t, "sim: Series event 1 at 3ns is before 5ns", func() { w.RunFor(time.Second) })
	assert.Panics(t, func() {
		w := sim.New(sim.Config{})
		w.RunFor(time.Second)
		w.Series(1, func(int) sim.Time { return 0 }, func(int) {})
	}, "an event before now")
}
