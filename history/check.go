package history

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// The rules every record obeys, applied alike by Writer (to what a
// producer hands it) and Reader (to what a file says). Field names in the
// errors are the wire names.

// name checks a required name (a node, a resource, a key, a kind):
// present, and a text (valid UTF-8, no longer than a line may be).
func name(field, s string) *fieldError {
	if s == "" {
		return badf(field, "missing or empty")
	}
	return text(field, s)
}

// text checks an optional string: valid UTF-8 and bounded when present.
func text(field, s string) *fieldError {
	switch {
	case !utf8.ValidString(s):
		return badf(field, "not valid UTF-8")
	case len(s) > MaxLineBytes:
		return badf(field, "longer than %d bytes", MaxLineBytes)
	}
	return nil
}

// names checks a list of required names.
func names(field string, list []string) *fieldError {
	for i, s := range list {
		if err := name(fmt.Sprintf("%s[%d]", field, i), s); err != nil {
			return err
		}
	}
	return nil
}

// instant checks a time that must be known: not negative, and not Never.
func instant(field string, t Time) *fieldError {
	switch {
	case t < 0:
		return badf(field, "must not be negative, got %d", int64(t))
	case t == Never:
		return badf(field, "%d is not a time (leave the field out for an end that never came)", int64(t))
	}
	return nil
}

// after checks an optional time (absent is the sentinel absent: Unknown
// or Never) that, when present, must be at or after earlier.
func after(field string, t, absent Time, earlierField string, earlier Time) *fieldError {
	if t == absent {
		return nil
	}
	if err := instant(field, t); err != nil {
		return err
	}
	if t < earlier {
		return badf(field, "%d is before %s %d", int64(t), earlierField, int64(earlier))
	}
	return nil
}

// span checks a required interval.
func span(startField string, start Time, endField string, end Time) *fieldError {
	if err := instant(startField, start); err != nil {
		return err
	}
	if err := instant(endField, end); err != nil {
		return err
	}
	if end < start {
		return badf(endField, "%d is before %s %d", int64(end), startField, int64(start))
	}
	return nil
}

// nonNegative checks a duration that must not be negative.
func nonNegative(field string, d time.Duration) *fieldError {
	if d < 0 {
		return badf(field, "must not be negative, got %d", int64(d))
	}
	return nil
}

// first returns the first non-nil error.
func first(errs ...*fieldError) *fieldError {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *Header) check() *fieldError {
	if h.Version != SchemaVersion {
		return badf("version", "unsupported schema version %d (want %d)", h.Version, SchemaVersion)
	}
	switch h.Determinism {
	case Exact, Verified, Statistical:
	case "":
		return badf("determinism", "missing (want %q, %q or %q)", Exact, Verified, Statistical)
	default:
		return badf("determinism", "unknown level %q (want %q, %q or %q)", h.Determinism, Exact, Verified, Statistical)
	}
	return first(name("producer", h.Producer), text("spec", h.Spec), text("scenario", h.Scenario),
		under("lease", h.Lease.check()), names("lease_servers", h.LeaseServers),
		names("fenced_servers", h.FencedServers), names("holders", h.Holders),
		names("resources", h.Resources), names("contended", h.Contended),
		instant("start_ns", h.Start), after("heal_ns", h.Heal, Unknown, "start_ns", h.Start))
}

func (l *Lease) check() *fieldError {
	switch {
	case l.TTL <= 0:
		return badf("ttl_ns", "must be positive, got %d", int64(l.TTL))
	case l.RhoPPB < 0 || l.RhoPPB >= 1e9:
		return badf("rho_ppb", "must be in [0, 1e9), got %d", l.RhoPPB)
	case l.HoldPPB < 0 || l.HoldPPB > 1e9:
		return badf("hold_ppb", "must be in [0, 1e9], got %d", l.HoldPPB)
	}
	return first(nonNegative("renew_interval_ns", l.RenewInterval), nonNegative("margin_ns", l.Margin),
		nonNegative("request_timeout_ns", l.RequestTimeout), nonNegative("backoff_max_ns", l.BackoffMax),
		nonNegative("ttl_min_ns", l.TTLMin), nonNegative("ttl_max_ns", l.TTLMax),
		nonNegative("detect_bound_ns", l.DetectBound), nonNegative("lock_delay_ns", l.LockDelay))
}

func (e *RunEnd) check(h *Header) *fieldError {
	switch {
	case e.MaxDriftPPB < -1:
		return badf("max_drift_ppb", "must not be negative, got %d", e.MaxDriftPPB)
	case e.At < h.Start:
		return badf("at_ns", "%d is before the header's start_ns %d", int64(e.At), int64(h.Start))
	}
	return instant("at_ns", e.At)
}

func (o *Operation) check() *fieldError {
	returnAfter, returnAfterField := o.Call, "call_ns"
	if o.Processed != Unknown {
		returnAfter, returnAfterField = o.Processed, "processed_ns"
	}
	if err := first(name("client", o.Client), name("server", o.Server), instant("call_ns", o.Call),
		after("processed_ns", o.Processed, Unknown, "call_ns", o.Call),
		after("return_ns", o.Return, Never, returnAfterField, returnAfter)); err != nil {
		return err
	}
	if err := under("input", o.Input.check()); err != nil {
		return err
	}
	if o.Output.isZero() {
		return nil
	}
	return under("output", o.Output.check())
}

func (p *Payload) isZero() bool {
	return p.Kind == "" && p.Resource == "" && p.Key == "" && p.Value == "" && p.Holder == "" && p.HolderIncarnation == 0 &&
		p.Token == 0 && p.TTL == 0 && p.Lease == 0 && p.Revision == 0 && p.Version == "" && !p.OK &&
		p.Err == "" && p.Clock == 0 && p.Remaining == 0 && p.State == "" && p.StateToken == 0 &&
		p.Prefix == "" && len(p.Keys) == 0
}

func (p *Payload) check() *fieldError {
	if err := first(name("kind", p.Kind), text("resource", p.Resource), text("key", p.Key), text("value", p.Value), text("holder", p.Holder),
		nonNegative("ttl_ns", p.TTL), text("version", p.Version), text("err", p.Err), text("state", p.State),
		text("prefix", p.Prefix)); err != nil {
		return err
	}
	for i, kv := range p.Keys {
		f := fmt.Sprintf("keys[%d]", i)
		if err := first(name(f+".key", kv.Key), text(f+".value", kv.Value)); err != nil {
			return err
		}
	}
	return nil
}

// endReasons are the reasons a belief can end, as history.go defines them.
var endReasons = []EndReason{EndDeadline, EndRelease, EndLost, EndFenced, EndCrash, EndRun}

func (b *BeliefInterval) check() *fieldError {
	known := false
	for _, r := range endReasons {
		known = known || b.Reason == r
	}
	if !known {
		return badf("reason", "unknown reason %q (want %s)", b.Reason, quoteReasons())
	}
	if err := first(name("holder", b.Holder), name("resource", b.Resource),
		span("start_ns", b.Start, "end_ns", b.End), after("last_act_ns", b.LastAct, Unknown, "start_ns", b.Start)); err != nil {
		return err
	}
	if b.LastAct != Unknown && b.LastAct > b.End {
		return badf("last_act_ns", "%d is after end_ns %d", int64(b.LastAct), int64(b.End))
	}
	return nil
}

func quoteReasons() string {
	s := ""
	for i, r := range endReasons {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", r)
	}
	return s
}

func (a *Action) check() *fieldError {
	return first(name("holder", a.Holder), name("resource", a.Resource), instant("at_ns", a.At), text("what", a.What))
}

func (w *FencedWrite) check() *fieldError {
	return first(text("store", w.Store), name("resource", w.Resource), text("key", w.Key),
		name("writer", w.Writer), instant("at_ns", w.At))
}

func (c *CheckpointAccepted) check() *fieldError {
	return first(name("resource", c.Resource), name("writer", c.Writer), instant("at_ns", c.At), text("state", c.State))
}

func (u *UnitDone) check() *fieldError {
	if u.Index < 0 {
		return badf("index", "must not be negative, got %d", u.Index)
	}
	return first(name("task", u.Task), name("worker", u.Worker), instant("at_ns", u.At))
}

func (e *SideEffect) check() *fieldError {
	return first(name("from", e.From), text("resource", e.Resource), name("id", e.ID), instant("at_ns", e.At))
}

func (s *RegistrationSighted) check() *fieldError {
	return first(name("reader", s.Reader), name("key", s.Key), name("owner", s.Owner), instant("at_ns", s.At))
}

func (f *FaultWindow) check() *fieldError {
	return first(name("kind", f.Kind), names("nodes", f.Nodes), span("start_ns", f.Start, "end_ns", f.End),
		text("detail", f.Detail))
}

func (t *TaskRecord) check() *fieldError {
	if t.Units <= 0 {
		return badf("units", "must be positive, got %d", t.Units)
	}
	return first(name("id", t.ID), nonNegative("unit_time_ns", t.UnitTime), instant("arrival_ns", t.Arrival),
		after("done_ns", t.Done, Never, "arrival_ns", t.Arrival),
		after("done_unanswered_ns", t.DoneUnanswered, Never, "arrival_ns", t.Arrival))
}

func (p *PremiseRecord) check() *fieldError {
	return first(name("name", p.Name), text("detail", p.Detail))
}
