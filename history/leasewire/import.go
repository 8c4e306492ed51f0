package leasewire

import (
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// ReadHistory reads a history file strictly (history.Reader) and returns
// the in-memory history the checkers read, and what the header says about
// the run. name names the file in errors. Bad input is a
// *history.LineError naming the line and the field (errors.Is
// history.ErrInvalid): a schema error, or a record leasesim's checkers
// cannot read (a kind or error code outside leasesim's protocol, an
// operation without its reply, an unknown specification, more than one
// grantor, a write or checkpoint record the operations do not bear out).
func ReadHistory(r io.Reader, name string) (*history.History, Meta, error) {
	rd, err := history.NewReader(r, name)
	if err != nil {
		return nil, Meta{}, err
	}
	b, err := newBuilder(rd.Header(), name)
	if err != nil {
		return nil, Meta{}, err
	}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, Meta{}, err
		}
		if err := b.add(e, rd.Line()); err != nil {
			return nil, Meta{}, err
		}
	}
	if err := b.finish(rd.End(), rd.Line()); err != nil {
		return nil, Meta{}, err
	}
	return b.h, b.meta, nil
}

// FromEvents is ReadHistory over records already in memory, as a recorder
// holds them: the same checks, with errors naming the record's place
// (line 1 is the header, the events follow, the end is last).
func FromEvents(head history.Header, events []history.Event, end history.RunEnd) (*history.History, Meta, error) {
	b, err := newBuilder(head, "records")
	if err != nil {
		return nil, Meta{}, err
	}
	for i, e := range events {
		if err := b.add(e, i+2); err != nil {
			return nil, Meta{}, err
		}
	}
	if err := b.finish(end, len(events)+2); err != nil {
		return nil, Meta{}, err
	}
	return b.h, b.meta, nil
}

// builder turns records into the legacy history.
type builder struct {
	file    string
	h       *history.History
	meta    Meta
	fenced  []string
	ops     []history.Operation // as read, for Derived
	derived []derivedRecord     // the write and checkpoint records of the file
	actions []lineAction
}

type derivedRecord struct {
	e    history.Event
	line int
}

type lineAction struct {
	a    *history.Action
	line int
}

func (b *builder) errAt(line int, field string, err error) *history.LineError {
	var fe *FieldError
	if errors.As(err, &fe) {
		field, err = joinField(field, fe.Field), fe.Err
	}
	return &history.LineError{File: b.file, Line: line, Field: field, Err: err}
}

func joinField(parent, field string) string {
	switch {
	case parent == "":
		return field
	case field == "":
		return parent
	}
	return parent + "." + field
}

func newBuilder(head history.Header, file string) (*builder, error) {
	b := &builder{file: file, fenced: head.FencedServers,
		meta: Meta{Producer: head.Producer, Spec: head.Spec, Determinism: head.Determinism, Scenario: head.Scenario,
			Seed: head.Seed, Holders: head.Holders, Resources: head.Resources}}
	var split lease.DriftSplit
	if head.Spec != "" {
		var err error
		if split, err = Split(head.Spec); err != nil {
			return nil, b.errAt(1, "spec", err)
		}
	}
	switch {
	case len(head.LeaseServers) > 1:
		return nil, b.errAt(1, "lease_servers", fmt.Errorf("%d servers: leasesim's checkers read one grantor", len(head.LeaseServers)))
	case len(head.FencedServers) > 1:
		return nil, b.errAt(1, "fenced_servers", fmt.Errorf("%d servers: leasesim's checkers read one fenced resource", len(head.FencedServers)))
	}
	l := head.Lease
	b.h = &history.History{
		Config: lease.Config{TTL: l.TTL, Rho: float64(l.RhoPPB) / 1e9, RenewInterval: l.RenewInterval, Margin: l.Margin,
			RequestTimeout: l.RequestTimeout, BackoffMax: l.BackoffMax, TTLMin: l.TTLMin, TTLMax: l.TTLMax, DriftSplit: split},
		Contended: head.Contended,
		HealAt:    max(sim.Time(head.Heal), 0), // no heal phase (Unknown): the checkers judge from the start
	}
	if len(head.LeaseServers) == 1 {
		b.h.Grantor = head.LeaseServers[0]
	}
	if len(head.FencedServers) == 1 {
		b.h.Resource = head.FencedServers[0]
	}
	return b, nil
}

// add converts one event.
func (b *builder) add(e history.Event, line int) error {
	h := b.h
	switch e := e.(type) {
	case *history.Operation:
		op, err := Op(e)
		if err != nil {
			return b.errAt(line, "", err)
		}
		h.Ops = append(h.Ops, op)
		b.ops = append(b.ops, *e)
	case *history.BeliefInterval:
		h.Beliefs = append(h.Beliefs, history.Belief{Holder: e.Holder, Resource: e.Resource, Token: e.Token,
			Start: sim.Time(e.Start), End: sim.Time(e.End), Reason: e.Reason, LastAct: sim.Time(e.LastAct),
			Inferred: e.Inferred})
	case *history.Action:
		b.actions = append(b.actions, lineAction{e, line})
	case *history.FencedWrite, *history.CheckpointAccepted:
		b.derived = append(b.derived, derivedRecord{e, line})
	case *history.UnitDone:
		h.Units = append(h.Units, history.Unit{Task: e.Task, Index: e.Index, Worker: e.Worker, Token: e.Token, At: sim.Time(e.At)})
	case *history.TaskRecord:
		h.Tasks = append(h.Tasks, history.Task{ID: e.ID, Units: e.Units, UnitTime: e.UnitTime,
			Arrival: sim.Time(e.Arrival), Done: sim.Time(e.Done)})
	case *history.SideEffect:
		h.Effects = append(h.Effects, history.Effect{From: e.From, Resource: e.Resource, ID: e.ID, At: sim.Time(e.At)})
	case *history.RegistrationSighted:
		h.Sightings = append(h.Sightings, history.Sighting{Reader: e.Reader, Key: e.Key, Owner: e.Owner, At: sim.Time(e.At)})
	case *history.FaultWindow:
		w, err := window(e)
		if err != nil {
			return b.errAt(line, "", err)
		}
		h.Faults = append(h.Faults, w)
	case *history.PremiseRecord:
		h.Premises = append(h.Premises, history.Premise{Name: e.Name, Held: e.Held, Detail: e.Detail})
	default:
		return b.errAt(line, "type", fmt.Errorf("record type %q is not read by leasesim's checkers", e.Type()))
	}
	return nil
}

// window converts a fault window: a kind of the kernel, and its node and
// peer.
func window(e *history.FaultWindow) (faults.Window, error) {
	w := faults.Window{Start: sim.Time(e.Start), End: sim.Time(e.End), Detail: e.Detail}
	if err := w.Kind.UnmarshalText([]byte(e.Kind)); err != nil {
		return w, fieldErr("kind", "%q is not a fault kind of leasesim (pause, partition, crash, …)", e.Kind)
	}
	switch len(e.Nodes) {
	case 0:
	case 1:
		w.Node = e.Nodes[0]
	case 2:
		w.Node, w.Peer = e.Nodes[0], e.Nodes[1]
	default:
		return w, fieldErr("nodes", "%d nodes: a fault of leasesim names a node and at most one peer", len(e.Nodes))
	}
	return w, nil
}

// finish checks the write and checkpoint records against the operations,
// applies the actions to the beliefs, and takes the end record.
func (b *builder) finish(end history.RunEnd, endLine int) error {
	if len(b.derived) > 0 {
		want := Derived(b.ops, b.fenced)
		for i, d := range b.derived {
			if i >= len(want) || !reflect.DeepEqual(d.e, want[i]) {
				return b.errAt(d.line, "", errors.New(explainDerived(d.e, want, i)))
			}
		}
		if len(want) > len(b.derived) {
			return b.errAt(endLine, "", fmt.Errorf("%d write and checkpoint records, but the operations show %d: "+
				"give all of them or none (they follow from the operations)", len(b.derived), len(want)))
		}
	}
	for _, la := range b.actions {
		b.act(la.a)
	}
	b.h.End = sim.Time(end.At)
	b.h.MaxDriftPPB = max(end.MaxDriftPPB, 0) // not measured (-1): no drift is known
	b.h.GrantorSyncs = end.StoreSyncs
	return nil
}

func explainDerived(got history.Event, want []history.Event, i int) string {
	if i >= len(want) {
		return fmt.Sprintf("a %s record the operations do not show (they show %d write and checkpoint records)", got.Type(), len(want))
	}
	return fmt.Sprintf("a %s record that does not match the operations: the %s record number %d (in file order) of what "+
		"the operations show is %+v", got.Type(), want[i].Type(), i+1, want[i])
}

// act applies an action the way the simulator's recorder does: it
// stretches the latest belief in (holder, resource, token) that began by
// then to the action, or, with none, is a belief of one instant inferred
// from the action.
func (b *builder) act(a *history.Action) {
	at := sim.Time(a.At)
	for i := len(b.h.Beliefs) - 1; i >= 0; i-- {
		bl := &b.h.Beliefs[i]
		if bl.Holder == a.Holder && bl.Resource == a.Resource && bl.Token == a.Token && bl.Start <= at {
			bl.LastAct = max(bl.LastAct, at)
			bl.End = max(bl.End, at)
			return
		}
	}
	b.h.Beliefs = append(b.h.Beliefs, history.Belief{Holder: a.Holder, Resource: a.Resource, Token: a.Token,
		Start: at, End: at, Reason: history.EndLost, LastAct: at, Inferred: true})
}
