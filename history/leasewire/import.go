package leasewire

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/history"
)

// ReadHistory reads a history file strictly (history.Reader) and returns
// the in-memory history the checkers read, and what the header says about
// the run. name names the file in errors. Bad input is a
// *history.LineError naming the line and the field (errors.Is
// history.ErrInvalid): a schema error, or a record leasesim's checkers
// cannot read (a kind or error code outside leasesim's protocol, an
// operation without its reply, an unknown specification, more than one
// grantor, a write or checkpoint record the operations do not bear out).
// A history whose spec is not leasesim's lease store ("expiring-key",
// "cas-record") comes from an implementation with its own protocol: its
// lease store's operations are read as they are, for the checkers to judge
// by that spec, and only the fenced store's must be leasesim's.
func ReadHistory(r io.Reader, name string) (*history.History, Meta, error) {
	return ReadHistoryAs(r, name, "")
}

// ReadHistoryAs is ReadHistory with the header's spec replaced by spec
// (unless spec is ""), as `simrun check --spec` asks: the spec decides how
// the lease store's operations are read (leasesim's protocol, or the
// implementation's own), so it must be known before they are. The header's
// lease.hold_ppb is replaced by the hold a lease-store spec's policy gives.
func ReadHistoryAs(r io.Reader, name, spec string) (*history.History, Meta, error) {
	rd, err := history.NewReader(r, name)
	if err != nil {
		return nil, Meta{}, err
	}
	head := rd.Header()
	if spec != "" && spec != head.Spec {
		head.Spec = spec
		if split, err := Split(spec); err == nil { // leasesim's lease store: the hold its policy gives
			head.Lease.HoldPPB = HoldPPB(split, head.Lease.RhoPPB)
		}
	}
	b, err := newBuilder(head, name)
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
	ops     []history.Operation // h's operations, which finish gives it
	meta    Meta
	fenced  []string
	derived []derivedRecord // the write and checkpoint records of the file
	actions []lineAction
	// foreign says the lease store speaks its own protocol (the header's
	// spec is not leasesim's lease store): its operations are read as they
	// are, for their spec; the fenced store's are still leasesim's.
	foreign bool
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
		meta: Meta{Producer: head.Producer, Determinism: head.Determinism, Scenario: head.Scenario,
			Seed: head.Seed, Holders: head.Holders, Resources: head.Resources}}
	b.foreign = head.Spec != "" && !strings.HasPrefix(head.Spec, SpecLeaseStore)
	if head.Spec != "" && !b.foreign {
		split, err := Split(head.Spec)
		if err != nil {
			return nil, b.errAt(1, "spec", err)
		}
		if want := HoldPPB(split, head.Lease.RhoPPB); head.Lease.HoldPPB != want {
			return nil, b.errAt(1, "lease.hold_ppb", fmt.Errorf("%d, but the spec %q holds a lease %d ppb of its "+
				"TTL longer (rho_ppb %d)", head.Lease.HoldPPB, head.Spec, want, head.Lease.RhoPPB))
		}
	}
	if len(head.FencedServers) > 1 {
		return nil, b.errAt(1, "fenced_servers", fmt.Errorf("%d servers: leasesim's checkers read one fenced resource", len(head.FencedServers)))
	}
	b.h = &history.History{
		Spec:      head.Spec,
		Lease:     head.Lease,
		Contended: head.Contended,
		HealAt:    max(head.Heal, 0), // no heal phase (Unknown): the checkers judge from the start
	}
	if len(head.LeaseServers) > 0 {
		b.h.Grantor = head.LeaseServers[0] // a replicated store's first member
	}
	if len(head.LeaseServers) > 1 {
		b.h.Members = slices.Clone(head.LeaseServers)
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
		check := checkOperation
		if b.foreign && !slices.Contains(b.fenced, e.Server) {
			check = checkRecorded // the lease store's own protocol: its spec reads it (P3)
		}
		if err := check(e); err != nil {
			return b.errAt(line, "", err)
		}
		b.ops = append(b.ops, *e)
	case *history.BeliefInterval:
		h.Beliefs = append(h.Beliefs, *e)
	case *history.Action:
		b.actions = append(b.actions, lineAction{e, line})
	case *history.FencedWrite, *history.CheckpointAccepted:
		b.derived = append(b.derived, derivedRecord{e, line})
	case *history.UnitDone:
		h.Units = append(h.Units, *e)
	case *history.TaskRecord:
		h.Tasks = append(h.Tasks, *e)
	case *history.SideEffect:
		h.Effects = append(h.Effects, *e)
	case *history.RegistrationSighted:
		h.Sightings = append(h.Sightings, *e)
	case *history.FaultWindow:
		if err := checkWindow(e); err != nil {
			return b.errAt(line, "", err)
		}
		h.Faults = append(h.Faults, *e)
	case *history.PremiseRecord:
		h.Premises = append(h.Premises, *e)
	case *history.LeaderTerm:
		h.Leaders = append(h.Leaders, *e)
	case *history.Declaration:
		h.Declarations = append(h.Declarations, *e)
	default:
		return b.errAt(line, "type", fmt.Errorf("record type %q is not read by leasesim's checkers", e.Type()))
	}
	return nil
}

// checkWindow checks that a fault window is one of leasesim's: a kind of
// its kernel (history.FaultKinds) or of a host (history.HostFaultKinds),
// a node and at most one peer.
func checkWindow(e *history.FaultWindow) error {
	if !slices.Contains(history.FaultKinds, e.Kind) && !slices.Contains(history.HostFaultKinds, e.Kind) {
		return fieldErr("kind", "%q is not a fault kind of leasesim (pause, partition, crash, …)", e.Kind)
	}
	if len(e.Nodes) > 2 {
		return fieldErr("nodes", "%d nodes: a fault of leasesim names a node and at most one peer", len(e.Nodes))
	}
	return nil
}

// finish checks the write and checkpoint records against the operations,
// applies the actions to the beliefs, and takes the end record.
func (b *builder) finish(end history.RunEnd, endLine int) error {
	b.h.SetOps(b.ops)
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
	b.h.End = end.At
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
	at := a.At
	for i := len(b.h.Beliefs) - 1; i >= 0; i-- {
		bl := &b.h.Beliefs[i]
		if bl.Holder == a.Holder && bl.Incarnation == a.Incarnation && bl.Resource == a.Resource &&
			bl.Token == a.Token && bl.Start <= at {
			bl.LastAct = max(bl.LastAct, at)
			bl.End = max(bl.End, at)
			return
		}
	}
	b.h.Beliefs = append(b.h.Beliefs, history.BeliefInterval{Holder: a.Holder, Incarnation: a.Incarnation,
		Resource: a.Resource, Token: a.Token,
		Start: at, End: at, Reason: history.EndLost, LastAct: at, Inferred: true})
}
