package history

import (
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// History is everything a run recorded for the checkers.
type History struct {
	// Config is the lease configuration the run used; Rho is the drift bound
	// the implementation was configured for.
	Config lease.Config
	// Grantor and Resource are the addresses of the lease store and of the
	// fenced resource.
	Grantor, Resource string
	// Ops are the lease-store and resource operations, in invocation order.
	Ops []Op
	// Effects are the unfenced side effects, in the order they happened.
	Effects []Effect
	// Beliefs are the intervals in which holders believed they held a grant.
	Beliefs []Belief
	// Units are the units of work executed, in the order they completed.
	Units []Unit
	// Tasks are the checkpointed tasks of the workload.
	Tasks []Task
	// Sightings are what discovery readers saw in the service registry.
	Sightings []Sighting
	// Faults are the faults that acted, as intervals.
	Faults []faults.Window
	// MaxDriftPPB is the largest clock drift any node ran at, in parts per
	// billion; beyond Config.Rho the exclusivity assumption is exceeded.
	MaxDriftPPB int64
	// Contended are the resources that live holders keep trying to hold
	// through the heal phase; P4 expects each to be held again in time.
	Contended []string
	// GrantorSyncs counts the grantor's durable writes (Storage.Sync calls):
	// the load on the lease store.
	GrantorSyncs uint64
	// Premises are what the scenario's story needed to happen, each with
	// whether it did; a premise that did not hold makes the run unknown.
	Premises []Premise
	// HealAt is when the fault phase ended; End is when the run ended.
	HealAt, End sim.Time
}

// Op is one client-visible operation: a request a client sent and the reply
// the server produced for it. A request the network duplicated and the
// server processed twice is two Ops. A request the server never processed
// is not an Op. Return is sim.Never when the reply never reached the client:
// the operation took effect, but the client does not know.
type Op struct {
	Client    string
	Server    string
	Call      sim.Time      // the client sent the request
	Processed sim.Time      // the server processed it and sent the reply
	Return    sim.Time      // the reply reached the client, or sim.Never
	In        lease.Message // the request as the client sent it
	Out       lease.Message // the reply as the server sent it
}

// Returned reports whether the client received the reply.
func (o Op) Returned() bool { return o.Return != sim.Never }

// Effect is one unfenced external side effect (a webhook, an email).
type Effect struct {
	From     string
	Resource string
	ID       string
	At       sim.Time
}

// EndReason says why a belief interval ended.
type EndReason string

// Why beliefs end.
const (
	EndDeadline EndReason = "deadline" // the holder's own clock passed its deadline
	EndRelease  EndReason = "release"  // the holder released the lease
	EndLost     EndReason = "lost"     // the grantor refused a renewal
	EndFenced   EndReason = "fenced"   // an action under the token was fenced
	EndCrash    EndReason = "crash"    // the holder crashed
	EndRun      EndReason = "end"      // the run ended while the holder believed
)

// Belief is an interval of true time in which Holder believed it held
// Resource under Token: from processing the grant to the end (see
// ARCHITECTURE.md, "Belief").
type Belief struct {
	Holder   string
	Resource string
	Token    uint64
	Start    sim.Time
	End      sim.Time
	Reason   EndReason
	// LastAct is the last action the holder took under the token, or -1.
	LastAct sim.Time
	// Inferred is set when the holder never reported this grant and the
	// recorder inferred the belief from its actions under the token alone.
	Inferred bool
}

// Unit is one unit of work a worker executed on a task under a token.
type Unit struct {
	Task   string
	Index  int
	Worker string
	Token  uint64
	At     sim.Time
}

// Task is a checkpointed task of the workload.
type Task struct {
	ID       string
	Units    int
	Arrival  sim.Time
	Done     sim.Time // sim.Never if it never completed
	UnitTime time.Duration
}

// Sighting is a discovery reader seeing a registration in the service
// registry.
type Sighting struct {
	Reader string
	Key    string
	Owner  string // the holder that registered the key
	At     sim.Time
}

// Premise is one thing a scenario's story needs to have happened for its
// verdicts to mean anything (the armed failpoint was hit, the partition cut
// a holder off while it held the lease), and whether it did.
type Premise struct {
	Name   string
	Held   bool
	Detail string // the evidence: when it happened, or why it did not
}
