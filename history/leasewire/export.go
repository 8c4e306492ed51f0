package leasewire

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/model"
)

// The lease-store specifications leasesim's protocol declares, as a
// header's spec names them: model's lease store, and after a slash the
// drift split it was declared with (lease.DriftSplit's names), which sets
// the specification's expiry policy.
var (
	// SpecLeaseStore is leasesim's lease store with its own expiry policy:
	// the grantor holds a lease for TTL×(1+rho) (lease.SplitGrantorHolds).
	SpecLeaseStore = model.LeaseSpec(model.HoldRho(0)).Name
	// SpecLeaseStoreHolderBudgets is the lease store whose grantor expires
	// a lease at exactly its TTL, as Redis PX does, while the holder
	// budgets 2×rho (lease.SplitHolderBudgets).
	SpecLeaseStoreHolderBudgets = SpecLeaseStore + "/" + lease.SplitHolderBudgets.String()
)

// Specs are the specification names Split accepts, in order.
var Specs = []string{SpecLeaseStore, SpecLeaseStoreHolderBudgets}

// Spec returns the specification name of a drift split.
func Spec(s lease.DriftSplit) string {
	if s == lease.SplitHolderBudgets {
		return SpecLeaseStoreHolderBudgets
	}
	return SpecLeaseStore
}

// Split returns the drift split a specification name declares
// ("lease-store/grantor-holds" is SpecLeaseStore spelled out).
func Split(spec string) (lease.DriftSplit, error) {
	switch spec {
	case SpecLeaseStore, SpecLeaseStore + "/" + lease.SplitGrantorHolds.String():
		return lease.SplitGrantorHolds, nil
	case SpecLeaseStoreHolderBudgets:
		return lease.SplitHolderBudgets, nil
	}
	return 0, fmt.Errorf("%q is not a specification leasesim's checkers judge leasesim's protocol by (want %q or %q)", spec,
		SpecLeaseStore, SpecLeaseStoreHolderBudgets)
}

// Meta is what a run knows about itself beyond its in-memory history: what
// produced it and how exactly it can be reproduced, and the names the
// header lists.
type Meta struct {
	// Producer names what recorded the history; empty means "leasesim
	// event host".
	Producer string
	// Determinism is how exactly the run can be reproduced; empty means
	// history.Exact.
	Determinism history.Determinism
	// Scenario and Seed identify a simulated run; both optional.
	Scenario string
	Seed     uint64
	// Holders and Resources are the holders the run started and the
	// resources they leased; nil means those the history names (the
	// clients that asked for a lease, the believers and the workers; the
	// resources of their operations and beliefs).
	Holders, Resources []string
}

// DefaultProducer is the producer of a history written without one.
const DefaultProducer = "leasesim event host"

// WriteHistory writes h as a history file: the header, every event, the
// end record. meta is optional (at most one); see Meta for its defaults.
// Writing it again gives the same bytes, and ReadHistory reads back what
// the checkers read in h.
func WriteHistory(w io.Writer, h *history.History, meta ...Meta) error {
	if len(meta) > 1 {
		return fmt.Errorf("leasewire: WriteHistory takes at most one Meta, got %d", len(meta))
	}
	var m Meta
	if len(meta) == 1 {
		m = meta[0]
	}
	head, events, end := Events(h, m)
	wr, err := history.NewWriter(w, head)
	if err != nil {
		return fmt.Errorf("leasewire: header: %w", err)
	}
	for _, e := range events {
		if err := wr.Write(e); err != nil {
			return fmt.Errorf("leasewire: %s record: %w", e.Type(), err)
		}
	}
	if err := wr.End(end); err != nil {
		return fmt.Errorf("leasewire: end record: %w", err)
	}
	return nil
}

// Events returns h as the schema's records: the header, the events
// (operations, beliefs, units, tasks, effects, sightings, faults,
// premises, leader terms, declarations, then the write and checkpoint records Derived from the
// operations), and the end record. The events point into h, but for the
// operations, which point into a copy of them (History.CopyOps).
func Events(h *history.History, m Meta) (history.Header, []history.Event, history.RunEnd) {
	head := history.Header{Version: history.SchemaVersion, Producer: m.Producer, Spec: h.Spec,
		Determinism: m.Determinism, Scenario: m.Scenario, Seed: m.Seed, Lease: h.Lease,
		LeaseServers: leaseServers(h), FencedServers: nonEmpty(h.Resource),
		Holders: m.Holders, Resources: m.Resources, Contended: h.Contended,
		Start: 0, Heal: h.HealAt}
	if head.Producer == "" {
		head.Producer = DefaultProducer
	}
	if head.Determinism == "" {
		head.Determinism = history.Exact
	}
	if head.Holders == nil {
		head.Holders = holdersOf(h)
	}
	if head.Resources == nil {
		head.Resources = resourcesOf(h)
	}
	ops := h.CopyOps()
	events := make([]history.Event, 0, len(ops)+len(h.Beliefs)+len(h.Units)+len(h.Tasks)+len(h.Effects)+
		len(h.Sightings)+len(h.Faults)+len(h.Premises)+len(h.Leaders)+len(h.Declarations))
	events = appendEvents(events, ops)
	events = appendEvents(events, h.Beliefs)
	events = appendEvents(events, h.Units)
	events = appendEvents(events, h.Tasks)
	events = appendEvents(events, h.Effects)
	events = appendEvents(events, h.Sightings)
	events = appendEvents(events, h.Faults)
	events = appendEvents(events, h.Premises)
	events = appendEvents(events, h.Leaders)
	events = appendEvents(events, h.Declarations)
	events = append(events, Derived(ops, head.FencedServers)...)
	end := history.RunEnd{At: h.End, MaxDriftPPB: h.MaxDriftPPB, StoreSyncs: h.GrantorSyncs}
	return head, events, end
}

// appendEvents appends a pointer to each record of rs.
func appendEvents[R any, P interface {
	*R
	history.Event
}](events []history.Event, rs []R) []history.Event {
	for i := range rs {
		events = append(events, P(&rs[i]))
	}
	return events
}

// Lease returns the lease configuration facts a header carries: cfg with
// its defaults, and the grantor's hold under its drift split (HoldPPB).
func Lease(cfg lease.Config) history.Lease {
	cfg = cfg.WithDefaults()
	rho := int64(math.Round(cfg.Rho * 1e9))
	return history.Lease{TTL: cfg.TTL, RhoPPB: rho, HoldPPB: HoldPPB(cfg.DriftSplit, rho),
		RenewInterval: cfg.RenewInterval, Margin: cfg.Margin, RequestTimeout: cfg.RequestTimeout,
		BackoffMax: cfg.BackoffMax, TTLMin: cfg.TTLMin, TTLMax: cfg.TTLMax}
}

// HoldPPB is how much longer than the TTL leasesim's grantor holds a lease
// under split, in parts per billion (history.Lease.HoldPPB): rho when the
// grantor holds (lease.SplitGrantorHolds), none when the holder budgets
// (lease.SplitHolderBudgets), as lease.Config.GrantorHold computes it.
func HoldPPB(split lease.DriftSplit, rhoPPB int64) int64 {
	if split == lease.SplitHolderBudgets {
		return 0
	}
	return rhoPPB
}

// nonEmpty is [s], or nil for an empty s.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// kindAcquire is the payload kind of an acquire.
var kindAcquire = lease.KindAcquire.String()

// holdersOf returns the holders a history names, sorted: the clients that
// asked for a lease, the holders that believed, the workers.
func holdersOf(h *history.History) []string {
	var out []string
	for _, op := range h.AllOps() {
		if op.Input.Kind == kindAcquire {
			out = append(out, op.Client)
		}
	}
	for _, b := range h.Beliefs {
		out = append(out, b.Holder)
	}
	for _, u := range h.Units {
		out = append(out, u.Worker)
	}
	return sortedSet(out)
}

// resourcesOf returns the resources a history names, sorted.
func resourcesOf(h *history.History) []string {
	var out []string
	for _, op := range h.AllOps() {
		if op.Input.Resource != "" && op.Server == h.Grantor {
			out = append(out, op.Input.Resource)
		}
	}
	for _, b := range h.Beliefs {
		out = append(out, b.Resource)
	}
	return sortedSet(append(out, h.Contended...))
}

func sortedSet(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// leaseServers are the header's lease_servers: a replicated store's
// members (History.Members), else its one grantor, if any.
func leaseServers(h *history.History) []string {
	if len(h.Members) > 0 {
		return slices.Clone(h.Members)
	}
	return nonEmpty(h.Grantor)
}
