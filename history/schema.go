package history

import (
	"time"

	"github.com/leasesim/leasesim/truetime"
)

// SchemaVersion is the version of the history schema that Reader reads
// and Writer writes. A file of another version is refused by name.
const SchemaVersion = 1

// Time is an instant of true time in nanoseconds since the run's start,
// supplied by whoever produced the history (as porcupine's Operation
// times are): the one true time of package truetime, which the kernel
// keeps too. Every time in a history is true time; readings of a node's
// own clock are named "local" and have their own fields.
type Time = truetime.Time

// Absent times. On the wire both are a field left out.
const (
	// Never is an end that did not come: an operation whose reply never
	// reached its client, a task that never completed.
	Never = truetime.Never
	// Unknown is an instant the producer could not observe: when a server
	// processed a request, a holder's last action.
	Unknown Time = -1
)

// Determinism says how exactly a history can be reproduced (DESIGN.md,
// "The door").
type Determinism string

// The determinism levels.
const (
	// Exact: the event host; the same seed gives the same trace hash on
	// any machine and any GOMAXPROCS.
	Exact Determinism = "exact"
	// Verified: the goroutine host; the run was repeated and every
	// repetition gave the same hash.
	Verified Determinism = "verified"
	// Statistical: real time; the schedule can be replayed and a
	// reproduction rate is reported.
	Statistical Determinism = "statistical"
)

// Header is the first record of a history: what produced it, which
// specification the lease store declares, the lease configuration the
// checkers need, and what the run declared up front.
type Header struct {
	// Version is the schema version; the writer fills in SchemaVersion
	// when it is zero, the reader refuses any other.
	Version int
	// Producer names what wrote the history ("leasesim event host",
	// "lease/realtime", an adapter's name). Required.
	Producer string
	// Spec names the sequential specification the lease store declares
	// for P3 (package model's names); empty leaves the choice to the
	// caller (simrun check --spec).
	Spec string
	// Determinism is how exactly the run can be reproduced. Required.
	Determinism Determinism
	// Scenario and Seed identify a simulated run; both optional.
	Scenario string
	Seed     uint64
	// Lease is the lease configuration the implementation ran with.
	Lease Lease
	// LeaseServers are the lease store's nodes (one grantor, or the
	// replicas); FencedServers the fenced stores' nodes. Operations name
	// their server, so the checkers can tell the two apart.
	LeaseServers, FencedServers []string
	// Holders are the holders and workers the run started, by name
	// (without incarnation). A holder here that was granted a lease but
	// reported no belief makes P1 unknown, not ok.
	Holders []string
	// Resources are the leased resources.
	Resources []string
	// Contended are the resources live holders keep trying to hold
	// through the heal phase; P4 expects each to be held again in time.
	Contended []string
	// Start is when the run started (normally 0). Heal is when the fault
	// phase ended, or Unknown when the run has no heal phase.
	Start, Heal Time
}

// Lease is the lease configuration facts the checkers read. Durations
// are on a correct clock; a node's clock runs at a rate within
// [1−rho, 1+rho] of true time.
type Lease struct {
	// TTL is the time to live a holder requests. Required.
	TTL time.Duration
	// RhoPPB is the drift bound rho the implementation was configured
	// for, in parts per billion.
	RhoPPB int64
	// HoldPPB is how much longer than a lease's TTL the lease store holds
	// it on its own clock, in parts per billion of the TTL: a lease
	// granted or renewed for ttl is held ttl + ceil(ttl×HoldPPB/1e9).
	// leasesim's grantor holds TTL×(1+rho) (HoldPPB = RhoPPB); a store
	// that expires a lease at exactly its TTL, as Redis PX does, has 0.
	// P3's lease-store and session specifications and P4's bound read
	// it. At most 1e9: a hold of one more TTL, as Consul's leader waits
	// twice a session's TTL.
	HoldPPB int64
	// RenewInterval, Margin, RequestTimeout, BackoffMax, TTLMin and
	// TTLMax are the implementation's settings where it has them; zero
	// means not applicable. TTLMax also bounds a restarted store's grace
	// period: it grants nothing until every lease it may have granted
	// has expired.
	RenewInterval, Margin, RequestTimeout, BackoffMax, TTLMin, TTLMax time.Duration
	// DetectBound is declared by an implementation that uses its leases
	// as a failure detector (node heartbeats, sessions, registrations):
	// a member whose last accepted renewal was at r and that then stopped
	// (crashed, paused, cut off from the lease store) is declared dead by
	// r + DetectBound in true time (P8). Zero: not a failure detector, so
	// P7 and P8 do not apply.
	DetectBound time.Duration
	// LockDelay is how long the lease store refuses a lock after the
	// session that held it was invalidated (Consul's lock-delay); zero:
	// none. P3's consul-session specification and P4's bound read it.
	LockDelay time.Duration
}

// RunEnd is the last record of a history: what is known only once the
// run is over. A history without it was cut short, and the reader says so.
type RunEnd struct {
	// At is when the run ended.
	At Time
	// MaxDriftPPB is the largest clock drift any node ran at, in parts
	// per billion; beyond the header's RhoPPB the exclusivity assumption
	// is exceeded. Negative means not measured.
	MaxDriftPPB int64
	// StoreSyncs counts the lease store's durable writes, the load on it;
	// zero when not measured.
	StoreSyncs uint64
}
