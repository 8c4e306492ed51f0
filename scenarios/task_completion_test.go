package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// A task is known done at the store's acceptance or, if earlier, when a
// worker is handed it as done; its first done checkpoint that got no
// answer is kept, and answered ones are not.
func TestTaskCompletion(t *testing.T) {
	sec := func(s int) sim.Time { return sim.Time(time.Duration(s) * time.Second) }
	w := sim.New(sim.Config{Seed: 1})
	h := &history.History{}
	q := newTaskQueue(w, h, SliceTasks([]TaskSpec{
		{ID: "seen", Units: 1, UnitTime: time.Second},
		{ID: "answered", Units: 1, UnitTime: time.Second},
		{ID: "untouched", Units: 1, UnitTime: time.Second},
	}))
	q.start()
	var asks []int32
	w.At(sec(2), func() { asks = append(asks, q.askedDone("seen")) })     // a timeout: unanswered
	w.At(sec(3), func() { asks = append(asks, q.askedDone("seen")) })     // answered, later than the first
	w.At(sec(4), func() { asks = append(asks, q.askedDone("answered")) }) // answered
	w.At(sec(5), func() { q.answeredDone(asks[1]); q.answeredDone(asks[2]) })
	w.At(sec(6), func() { q.seenDone("seen") })
	w.At(sec(7), func() { q.seenDone("seen") }) // a later sighting changes nothing
	w.RunUntil(sec(10))
	q.finishCompletion()

	never := history.Never
	byID := map[string]history.TaskRecord{}
	for _, r := range h.Tasks {
		byID[r.ID] = r
	}
	assert.Equal(t, history.Time(sec(6)), byID["seen"].Done, "first known done when a worker was handed it as done")
	assert.Equal(t, history.Time(sec(2)), byID["seen"].DoneUnanswered, "the first ask that got no answer")
	assert.Equal(t, never, byID["answered"].Done, "acceptance is the recorder's (build.finish), not the queue's")
	assert.Equal(t, never, byID["answered"].DoneUnanswered, "an answered ask is no unanswered one")
	assert.Equal(t, never, byID["untouched"].Done)
	assert.Equal(t, never, byID["untouched"].DoneUnanswered)
}
