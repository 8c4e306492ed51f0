package scenarios

import (
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// unitRec is a unit of work a worker completed, while the run goes: a
// small record without pointers (its task interned in recorder.msgs),
// built into the history's UnitDone when the run has stopped (finishWork).
type unitRec struct {
	at          history.Time
	incarnation uint64
	token       uint64
	index       int
	task        int32 // in recorder.msgs.strs
	worker      sim.NodeID
}

// effectRec is an unfenced side effect that reached its sink, while the
// run goes: its resource interned and its id copied into recorder.msgs.text
// (an id names one unit of work: it repeats only when the unit is redone,
// too rarely for interning to pay).
type effectRec struct {
	at          history.Time
	incarnation uint64
	id          textSpan
	from        sim.NodeID
	resource    int32 // in recorder.msgs.strs
}

// sightRec is a registration a reader saw in a list reply, while the run
// goes: its key and owner interned in recorder.msgs, built into the
// history's Sightings when the run has stopped (finishWork). A run that
// polls the registry sees thousands; appended to the history's table one
// by one they cost about five times the table's final size.
type sightRec struct {
	at         history.Time
	reader     sim.NodeID
	key, owner int32 // in recorder.msgs.strs
}

// textSpan is a string kept in a msgTable's text: its offset and length.
type textSpan struct{ at, n int }

// addText copies s into t's text and returns where it is.
func (t *msgTable) addText(s string) textSpan {
	at := len(t.text)
	t.text = append(doubled(t.text), s...)
	return textSpan{at, len(s)}
}

// cut returns the string sp names in text, the table's text as one string.
func (sp textSpan) cut(text string) string { return text[sp.at : sp.at+sp.n] }

// finishWork builds the history's units, effects and sightings from the compact
// records, each table at its final size. text is string(r.msgs.text).
func (r *recorder) finishWork(nodes []*sim.Node, text string) {
	strs := &r.msgs.strs
	units := sized[[]history.UnitDone](int(r.units.n))
	for i := range units {
		u := r.units.at(int32(i))
		units[i] = history.UnitDone{Task: strs.str(u.task), Index: u.index, Worker: nodes[u.worker].Name(),
			Incarnation: u.incarnation, Token: u.token, At: u.at}
	}
	effects := sized[[]history.SideEffect](int(r.effects.n))
	for i := range effects {
		e := r.effects.at(int32(i))
		effects[i] = history.SideEffect{From: nodes[e.from].Name(), Incarnation: e.incarnation, Resource: strs.str(e.resource),
			ID: e.id.cut(text), At: e.at}
	}
	sightings := sized[[]history.RegistrationSighted](int(r.sightings.n))
	for i := range sightings {
		sr := r.sightings.at(int32(i))
		sightings[i] = history.RegistrationSighted{Reader: nodes[sr.reader].Name(), Key: strs.str(sr.key),
			Owner: strs.str(sr.owner), At: sr.at}
	}
	r.h.Units, r.h.Effects, r.h.Sightings = units, effects, sightings
}

// sized returns a new table of n elements, nil when n is 0, as a history
// that recorded none has it.
func sized[S ~[]E, E any](n int) S {
	if n == 0 {
		return nil
	}
	return make(S, n)
}
