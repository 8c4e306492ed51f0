package history

import "time"

// TypeDeclaration is the "type" of a Declaration record.
const TypeDeclaration Type = "declaration"

// Declaration is a failure detector's verdict about a member: declared
// dead (suspected: Kubernetes' node lifecycle controller marking a node's
// Ready condition Unknown, a registry evicting a registration, a session
// expiring) or alive again (the suspicion withdrawn), by whom and when.
// P7 (accuracy) and P8 (completeness) judge them against the members'
// renewals and the fault windows, for a history whose header declares a
// detection bound (Lease.DetectBound).
//
// The member is named as the detector knows it, without an incarnation:
// a detector judges a name (a node, a registration), and a restarted
// member that renews again is alive under the same name.
type Declaration struct {
	// Detector is the node that judged; Member the member it judged.
	Detector, Member string
	// Dead is true for a declaration of death (suspicion), false for a
	// member declared alive again.
	Dead bool
	// At is when the detector declared it.
	At Time
	// Grace is the grace period the detector applied to the member: how
	// long, on the detector's own clock, it waits without seeing a renewal
	// before it declares the member dead; zero when not stated.
	Grace time.Duration
}

// Type returns TypeDeclaration.
func (*Declaration) Type() Type { return TypeDeclaration }

type declarationWire struct {
	Type     Type   `json:"type"`
	Detector string `json:"detector,omitzero"`
	Member   string `json:"member,omitzero"`
	Dead     *bool  `json:"dead"`
	At       *int64 `json:"at_ns"`
	Grace    int64  `json:"grace_ns,omitzero"`
}

func (d *Declaration) toWire() any {
	return &declarationWire{Type: TypeDeclaration, Detector: d.Detector, Member: d.Member, Dead: ptr(d.Dead),
		At: timePtr(d.At), Grace: int64(d.Grace)}
}

func (w *declarationWire) event() (Event, *fieldError) {
	var m missing
	return &Declaration{Detector: w.Detector, Member: w.Member, Dead: need(&m, "dead", w.Dead),
		At: Time(need(&m, "at_ns", w.At)), Grace: time.Duration(w.Grace)}, m.err
}

func (d *Declaration) check() *fieldError {
	if err := first(name("detector", d.Detector), name("member", d.Member), instant("at_ns", d.At),
		nonNegative("grace_ns", d.Grace)); err != nil {
		return err
	}
	if d.Detector == d.Member {
		return badf("member", "the detector %q declares about itself", d.Member)
	}
	return nil
}

func (d *Declaration) bounds() (Time, Time) { return d.At, d.At }
