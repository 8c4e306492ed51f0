package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/sim"
)

// write is one write to the shared resource of the failpoint tests.
type write struct {
	by string
	at sim.Time
}

// TestFailpointPauseLandsBetweenCheckAndWrite is the GC-pause story: a
// holder checks, reaches "before-write" with a pause armed, and another node
// writes while it is frozen. The holder's write runs exactly when the pause
// ends, after the other write, and never before.
func TestFailpointPauseLandsBetweenCheckAndWrite(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pause := time.Duration(rapid.Int64Range(1, int64(time.Second)).Draw(t, "pause"))
		checkAt := sim.Time(rapid.Int64Range(0, int64(time.Second)).Draw(t, "check_at"))
		otherAt := checkAt + sim.Time(rapid.Int64Range(0, int64(pause)-1).Draw(t, "other_after_check"))

		w := sim.New(sim.Config{})
		var writes []write
		holder := w.AddNode("holder", nil)
		other := w.AddNode("other", nil)
		holder.ArmFailpoint("before-write", sim.FailPause, pause)
		ran := false
		w.At(checkAt, func() {
			holder.Failpoint("before-write", func() {
				ran = true
				writes = append(writes, write{"holder", w.Now()})
			})
			assert.False(t, ran, "the continuation ran before the pause")
			assert.Equal(t, sim.Paused, holder.State())
		})
		w.At(otherAt, func() { writes = append(writes, write{other.Name(), w.Now()}) })
		require.NoError(t, w.RunFor(3*time.Second).Err)

		require.Equal(t, []write{{"other", otherAt}, {"holder", checkAt.Add(pause)}}, writes)
		assert.Equal(t, sim.Up, holder.State())
	})
}

func TestFailpointCrashNeverRunsTheContinuation(t *testing.T) {
	w := sim.New(sim.Config{})
	boots := 0
	n := w.AddNode("holder", func(*sim.Node) { boots++ })
	n.ArmFailpoint("before-write", sim.FailCrash, 0)
	ran := 0
	reach := func() { n.Failpoint("before-write", func() { ran++ }) }
	w.At(sim.Time(time.Second), func() {
		reach()
		assert.Equal(t, sim.Crashed, n.State())
	})
	w.At(sim.Time(2*time.Second), n.Restart)
	w.At(sim.Time(3*time.Second), reach) // the arming was used up by the crash
	require.NoError(t, w.RunFor(4*time.Second).Err)
	assert.Equal(t, 1, ran, "only the reach after the restart runs its continuation")
	assert.Equal(t, 2, boots)
}

func TestFailpointUnarmedRunsAtOnce(t *testing.T) {
	w := sim.New(sim.Config{Trace: sim.TraceConfig{Keep: 1 << 10}})
	n := w.AddNode("holder", nil)
	n.ArmFailpoint("other-point", sim.FailCrash, 0)
	w.At(0, func() {
		ran := false
		n.Failpoint("before-write", func() { ran = true })
		assert.True(t, ran, "an unarmed failpoint runs its continuation inside the call")
	})
	require.NoError(t, w.RunFor(time.Second).Err)
	assert.Equal(t, sim.Up, n.State())
}

func TestFailpointArmingFiresOnceAndCanBeDisarmed(t *testing.T) {
	w := sim.New(sim.Config{Trace: sim.TraceConfig{Keep: 1 << 10}})
	n := w.AddNode("holder", nil)
	n.ArmFailpoint("p", sim.FailPause, time.Second)
	n.ArmFailpoint("q", sim.FailCrash, 0)
	var ran []sim.Time
	reach := func(name string) func() {
		return func() { n.Failpoint(name, func() { ran = append(ran, w.Now()) }) }
	}
	w.At(0, reach("p"))                       // pauses until 1s
	w.At(sim.Time(2*time.Second), reach("p")) // used up: runs at once
	w.At(sim.Time(3*time.Second), n.DisarmFailpoints)
	w.At(sim.Time(4*time.Second), reach("q")) // disarmed: runs at once
	require.NoError(t, w.RunFor(5*time.Second).Err)
	assert.Equal(t, []sim.Time{sim.Time(time.Second), sim.Time(2 * time.Second), sim.Time(4 * time.Second)}, ran)

	var actions []uint64
	for _, r := range w.Trace().Recent() {
		if r.Kind == sim.RecFailpoint {
			actions = append(actions, r.B)
		}
	}
	assert.Equal(t, []uint64{uint64(sim.FailPause), 0, 0}, actions, "the trace records the action each reach took")
	assert.Equal(t, "pause", sim.FailPause.String())
	assert.Equal(t, "crash", sim.FailCrash.String())
}

// FailpointVia runs the continuation through the host's wrapper, at once
// when nothing is armed and at the resume after an armed pause.
func TestFailpointViaWrapsEveryRun(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("holder", nil)
	var log []string
	via := func(f func()) {
		log = append(log, "via")
		f()
	}
	then := func() { log = append(log, "then at "+w.Now().String()) }
	w.At(0, func() {
		n.FailpointVia("before-write", then, via)
		n.ArmFailpoint("before-write", sim.FailPause, time.Second)
		n.FailpointVia("before-write", then, via)
		log = append(log, "paused")
	})
	require.NoError(t, w.RunFor(2*time.Second).Err)
	assert.Equal(t, []string{"via", "then at 0s", "paused", "via", "then at 1s"}, log)
}
