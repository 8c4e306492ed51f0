package history

import "time"

// Conversions between the records and their wire forms. toWire never
// fails (the writer checks the record first); fromWire reports the first
// required field that is missing, in wire order.

// missing remembers the first required field found missing.
type missing struct{ err *fieldError }

// need returns *p, or records field as missing.
func need[T any](m *missing, field string, p *T) T {
	if p == nil {
		if m.err == nil {
			m.err = badf(field, "missing")
		}
		var zero T
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

func timePtr(t Time) *int64 { return ptr(int64(t)) }

// optTime is the wire form of an optional time: nil when absent.
func optTime(t, absent Time) *int64 {
	if t == absent {
		return nil
	}
	return timePtr(t)
}

// opt reads an optional time. A value given must be a time: a sentinel
// written out (-1, or the largest int64) is refused rather than read as
// absent, so that reading is one to one.
func opt(m *missing, field string, p *int64, absent Time) Time {
	if p == nil {
		return absent
	}
	if err := instant(field, Time(*p)); err != nil && m.err == nil {
		m.err = err
	}
	return Time(*p)
}

// orNil returns nil for an empty list, so that "[]" and no list read alike.
func orNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

func (h *Header) toWire() headerWire {
	l := h.Lease
	return headerWire{Type: TypeHeader, Version: ptr(h.Version), Producer: h.Producer, Spec: h.Spec,
		Determinism: string(h.Determinism), Scenario: h.Scenario, Seed: h.Seed,
		Lease: &leaseWire{TTL: ptr(int64(l.TTL)), RhoPPB: l.RhoPPB, HoldPPB: l.HoldPPB, RenewInterval: int64(l.RenewInterval),
			Margin: int64(l.Margin), RequestTimeout: int64(l.RequestTimeout), BackoffMax: int64(l.BackoffMax),
			TTLMin: int64(l.TTLMin), TTLMax: int64(l.TTLMax), DetectBound: int64(l.DetectBound),
			LockDelay: int64(l.LockDelay)},
		LeaseServers: h.LeaseServers, FencedServers: h.FencedServers, Holders: h.Holders,
		Resources: h.Resources, Contended: h.Contended, Start: timePtr(h.Start), Heal: optTime(h.Heal, Unknown)}
}

func (w *headerWire) header() (Header, *fieldError) {
	var m missing
	h := Header{Version: need(&m, "version", w.Version), Producer: w.Producer, Spec: w.Spec,
		Determinism: Determinism(w.Determinism), Scenario: w.Scenario, Seed: w.Seed,
		LeaseServers: orNil(w.LeaseServers), FencedServers: orNil(w.FencedServers), Holders: orNil(w.Holders),
		Resources: orNil(w.Resources), Contended: orNil(w.Contended)}
	if m.err != nil { // a file of another version is named as such first
		return h, m.err
	}
	need(&m, "lease", w.Lease)
	if l := w.Lease; l != nil {
		var lm missing
		h.Lease = Lease{TTL: time.Duration(need(&lm, "ttl_ns", l.TTL)), RhoPPB: l.RhoPPB, HoldPPB: l.HoldPPB,
			RenewInterval: time.Duration(l.RenewInterval), Margin: time.Duration(l.Margin),
			RequestTimeout: time.Duration(l.RequestTimeout), BackoffMax: time.Duration(l.BackoffMax),
			TTLMin: time.Duration(l.TTLMin), TTLMax: time.Duration(l.TTLMax), DetectBound: time.Duration(l.DetectBound),
			LockDelay: time.Duration(l.LockDelay)}
		if lm.err != nil {
			return h, under("lease", lm.err)
		}
	}
	h.Start = Time(need(&m, "start_ns", w.Start))
	h.Heal = opt(&m, "heal_ns", w.Heal, Unknown)
	return h, m.err
}

func (e *RunEnd) toWire() endWire {
	w := endWire{Type: TypeEnd, At: timePtr(e.At), StoreSyncs: e.StoreSyncs}
	if e.MaxDriftPPB != -1 {
		w.MaxDriftPPB = ptr(e.MaxDriftPPB)
	}
	return w
}

func (w *endWire) end() (RunEnd, *fieldError) {
	var m missing
	e := RunEnd{At: Time(need(&m, "at_ns", w.At)), MaxDriftPPB: -1, StoreSyncs: w.StoreSyncs}
	if w.MaxDriftPPB != nil {
		e.MaxDriftPPB = *w.MaxDriftPPB
	}
	return e, m.err
}

func (p *Payload) toWire() *payloadWire {
	w := &payloadWire{Kind: p.Kind, Resource: p.Resource, Key: p.Key, Value: p.Value, Holder: p.Holder,
		HolderIncarnation: p.HolderIncarnation, Token: p.Token, TTL: int64(p.TTL), Lease: p.Lease,
		Revision: p.Revision, Version: p.Version, OK: p.OK, Err: p.Err, Clock: int64(p.Clock),
		Remaining: int64(p.Remaining), State: p.State, StateToken: p.StateToken, Prefix: p.Prefix}
	for _, kv := range p.Keys {
		w.Keys = append(w.Keys, kvWire(kv))
	}
	return w
}

func (w *payloadWire) payload() Payload {
	if w == nil {
		return Payload{}
	}
	p := Payload{Kind: w.Kind, Resource: w.Resource, Key: w.Key, Value: w.Value, Holder: w.Holder,
		HolderIncarnation: w.HolderIncarnation, Token: w.Token, TTL: time.Duration(w.TTL), Lease: w.Lease,
		Revision: w.Revision, Version: w.Version, OK: w.OK, Err: w.Err, Clock: time.Duration(w.Clock),
		Remaining: time.Duration(w.Remaining), State: w.State, StateToken: w.StateToken, Prefix: w.Prefix}
	for _, kv := range w.Keys {
		p.Keys = append(p.Keys, KV(kv))
	}
	return p
}

func (o *Operation) toWire() any {
	w := &operationWire{Type: TypeOperation, Client: o.Client, Incarnation: o.Incarnation, Server: o.Server,
		ID: ptr(o.ID), Call: timePtr(o.Call), Processed: optTime(o.Processed, Unknown),
		Return: optTime(o.Return, Never), Input: o.Input.toWire(), Msg: o.Msg}
	if !o.Output.isZero() {
		w.Output = o.Output.toWire()
	}
	return w
}

func (w *operationWire) event() (Event, *fieldError) {
	var m missing
	o := &Operation{Client: w.Client, Incarnation: w.Incarnation, Server: w.Server, ID: need(&m, "id", w.ID),
		Call: Time(need(&m, "call_ns", w.Call)), Processed: opt(&m, "processed_ns", w.Processed, Unknown),
		Return: opt(&m, "return_ns", w.Return, Never)}
	need(&m, "input", w.Input)
	o.Input, o.Output, o.Msg = w.Input.payload(), w.Output.payload(), orNil(w.Msg)
	if w.Output != nil && o.Output.isZero() {
		return o, badf("output", "empty (leave it out when the reply was not observed)")
	}
	return o, m.err
}

func (b *BeliefInterval) toWire() any {
	return &beliefWire{Type: TypeBelief, Holder: b.Holder, Incarnation: b.Incarnation, Resource: b.Resource,
		Token: ptr(b.Token), Start: timePtr(b.Start), End: timePtr(b.End), Reason: string(b.Reason),
		LocalDeadline: int64(b.LocalDeadline), LastAct: optTime(b.LastAct, Unknown), Inferred: b.Inferred}
}

func (w *beliefWire) event() (Event, *fieldError) {
	var m missing
	b := &BeliefInterval{Holder: w.Holder, Incarnation: w.Incarnation, Resource: w.Resource,
		Token: need(&m, "token", w.Token), Start: Time(need(&m, "start_ns", w.Start)),
		End: Time(need(&m, "end_ns", w.End)), Reason: EndReason(w.Reason),
		LocalDeadline: time.Duration(w.LocalDeadline), LastAct: opt(&m, "last_act_ns", w.LastAct, Unknown),
		Inferred: w.Inferred}
	return b, m.err
}

func (a *Action) toWire() any {
	return &actionWire{Type: TypeAction, Holder: a.Holder, Incarnation: a.Incarnation, Resource: a.Resource,
		Token: ptr(a.Token), At: timePtr(a.At), What: a.What, Msg: a.Msg}
}

func (w *actionWire) event() (Event, *fieldError) {
	var m missing
	return &Action{Holder: w.Holder, Incarnation: w.Incarnation, Resource: w.Resource,
		Token: need(&m, "token", w.Token), At: Time(need(&m, "at_ns", w.At)), What: w.What, Msg: orNil(w.Msg)}, m.err
}

func (f *FencedWrite) toWire() any {
	return &writeWire{Type: TypeWrite, Store: f.Store, Resource: f.Resource, Key: f.Key, Writer: f.Writer,
		Incarnation: f.Incarnation, Token: ptr(f.Token), At: timePtr(f.At), Accepted: ptr(f.Accepted), Msg: f.Msg}
}

func (w *writeWire) event() (Event, *fieldError) {
	var m missing
	return &FencedWrite{Store: w.Store, Resource: w.Resource, Key: w.Key, Writer: w.Writer,
		Incarnation: w.Incarnation, Token: need(&m, "token", w.Token), At: Time(need(&m, "at_ns", w.At)),
		Accepted: need(&m, "accepted", w.Accepted), Msg: orNil(w.Msg)}, m.err
}

func (c *CheckpointAccepted) toWire() any {
	return &checkpointWire{Type: TypeCheckpoint, Resource: c.Resource, Writer: c.Writer,
		Incarnation: c.Incarnation, Token: ptr(c.Token), At: timePtr(c.At), State: c.State, Msg: c.Msg}
}

func (w *checkpointWire) event() (Event, *fieldError) {
	var m missing
	return &CheckpointAccepted{Resource: w.Resource, Writer: w.Writer, Incarnation: w.Incarnation,
		Token: need(&m, "token", w.Token), At: Time(need(&m, "at_ns", w.At)), State: w.State,
		Msg: orNil(w.Msg)}, m.err
}

func (u *UnitDone) toWire() any {
	return &unitWire{Type: TypeUnit, Task: u.Task, Index: ptr(u.Index), Worker: u.Worker,
		Incarnation: u.Incarnation, Token: ptr(u.Token), At: timePtr(u.At)}
}

func (w *unitWire) event() (Event, *fieldError) {
	var m missing
	return &UnitDone{Task: w.Task, Index: need(&m, "index", w.Index), Worker: w.Worker,
		Incarnation: w.Incarnation, Token: need(&m, "token", w.Token), At: Time(need(&m, "at_ns", w.At))}, m.err
}

func (e *SideEffect) toWire() any {
	return &effectWire{Type: TypeEffect, From: e.From, Incarnation: e.Incarnation, Resource: e.Resource,
		ID: e.ID, At: timePtr(e.At), Msg: e.Msg}
}

func (w *effectWire) event() (Event, *fieldError) {
	var m missing
	return &SideEffect{From: w.From, Incarnation: w.Incarnation, Resource: w.Resource, ID: w.ID,
		At: Time(need(&m, "at_ns", w.At)), Msg: orNil(w.Msg)}, m.err
}

func (s *RegistrationSighted) toWire() any {
	return &sightingWire{Type: TypeSighting, Reader: s.Reader, Key: s.Key, Owner: s.Owner, At: timePtr(s.At)}
}

func (w *sightingWire) event() (Event, *fieldError) {
	var m missing
	return &RegistrationSighted{Reader: w.Reader, Key: w.Key, Owner: w.Owner,
		At: Time(need(&m, "at_ns", w.At))}, m.err
}

func (f *FaultWindow) toWire() any {
	return &faultWire{Type: TypeFault, Kind: f.Kind, Nodes: f.Nodes, Start: timePtr(f.Start),
		End: timePtr(f.End), Detail: f.Detail}
}

func (w *faultWire) event() (Event, *fieldError) {
	var m missing
	return &FaultWindow{Kind: w.Kind, Nodes: orNil(w.Nodes), Start: Time(need(&m, "start_ns", w.Start)),
		End: Time(need(&m, "end_ns", w.End)), Detail: w.Detail}, m.err
}

func (t *TaskRecord) toWire() any {
	return &taskWire{Type: TypeTask, ID: t.ID, Units: ptr(t.Units), UnitTime: ptr(int64(t.UnitTime)),
		Arrival: timePtr(t.Arrival), Done: optTime(t.Done, Never), DoneUnanswered: optTime(t.DoneUnanswered, Never)}
}

func (w *taskWire) event() (Event, *fieldError) {
	var m missing
	return &TaskRecord{ID: w.ID, Units: need(&m, "units", w.Units),
		UnitTime: time.Duration(need(&m, "unit_time_ns", w.UnitTime)),
		Arrival:  Time(need(&m, "arrival_ns", w.Arrival)), Done: opt(&m, "done_ns", w.Done, Never),
		DoneUnanswered: opt(&m, "done_unanswered_ns", w.DoneUnanswered, Never)}, m.err
}

func (p *PremiseRecord) toWire() any {
	return &premiseWire{Type: TypePremise, Name: p.Name, Held: ptr(p.Held), Detail: p.Detail}
}

func (w *premiseWire) event() (Event, *fieldError) {
	var m missing
	return &PremiseRecord{Name: w.Name, Held: need(&m, "held", w.Held), Detail: w.Detail}, m.err
}

// bounds of a premise: it names no time of its own.
func (p *PremiseRecord) bounds() (Time, Time) { return Unknown, Unknown }

func (o *Operation) bounds() (Time, Time) {
	latest := o.Call
	if o.Processed != Unknown {
		latest = o.Processed
	}
	if o.Return != Never {
		latest = o.Return
	}
	return o.Call, latest
}

func (b *BeliefInterval) bounds() (Time, Time)      { return b.Start, b.End }
func (a *Action) bounds() (Time, Time)              { return a.At, a.At }
func (f *FencedWrite) bounds() (Time, Time)         { return f.At, f.At }
func (c *CheckpointAccepted) bounds() (Time, Time)  { return c.At, c.At }
func (u *UnitDone) bounds() (Time, Time)            { return u.At, u.At }
func (e *SideEffect) bounds() (Time, Time)          { return e.At, e.At }
func (s *RegistrationSighted) bounds() (Time, Time) { return s.At, s.At }
func (f *FaultWindow) bounds() (Time, Time)         { return f.Start, f.End }

func (t *TaskRecord) bounds() (Time, Time) {
	latest := t.Arrival
	for _, at := range [...]Time{t.Done, t.DoneUnanswered} {
		if at != Never {
			latest = max(latest, at)
		}
	}
	return t.Arrival, latest
}
