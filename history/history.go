package history

// History is everything a run recorded for the checkers, built from the
// schema's own records: what a header, the events and the end record of
// a history file say, held in memory.
type History struct {
	// Spec names the sequential specification the lease store declares
	// for P3 (the header's spec); empty leaves the choice to the checker's
	// caller.
	Spec string
	// Lease is the lease configuration the implementation ran with.
	Lease Lease
	// Grantor and Resource are the addresses of the lease store and of the
	// fenced resource.
	Grantor, Resource string
	// Members are a replicated lease store's members, Grantor first, when
	// the history names them without their terms (the header's
	// lease_servers; Leaders name them with terms): a goroutine-host store
	// such as hashicorp/raft. Empty for a store of one grantor.
	Members []string
	// ops are the lease-store and fenced-store operations, in the order
	// their replies left the servers (usually processed order), unless src
	// gives them. Read them with NumOps, Op, LoadOp, LoadOpHead or AllOps;
	// add them with AppendOp or SetOps, or give them from a producer's own
	// records with SetOpSource (ops.go).
	ops []Operation
	src OpSource
	// Effects are the unfenced side effects, in the order they happened.
	Effects []SideEffect
	// Beliefs are the intervals in which holders believed they held a grant.
	Beliefs []BeliefInterval
	// Units are the units of work executed, in the order they completed.
	Units []UnitDone
	// Tasks are the checkpointed tasks of the workload.
	Tasks []TaskRecord
	// Sightings are what discovery readers saw in the service registry.
	Sightings []RegistrationSighted
	// Faults are the faults that acted, as intervals.
	Faults []FaultWindow
	// MaxDriftPPB is the largest clock drift any node ran at, in parts per
	// billion; beyond Lease.RhoPPB the exclusivity assumption is exceeded.
	MaxDriftPPB int64
	// Contended are the resources that live holders keep trying to hold
	// through the heal phase; P4 expects each to be held again in time.
	Contended []string
	// GrantorSyncs counts the grantor's durable writes (Storage.Sync calls):
	// the load on the lease store.
	GrantorSyncs uint64
	// Premises are what the scenario's story needed to happen, each with
	// whether it did; a premise that did not hold makes the run unknown.
	Premises []PremiseRecord
	// Leaders are the terms in which a replicated store's members led,
	// in the order they began (empty for a store of one grantor).
	Leaders []LeaderTerm
	// Declarations are a failure detector's verdicts about its members
	// (dead, alive again), in the order they were made; P7 and P8 read
	// them when Lease.DetectBound declares the run a detector's.
	Declarations []Declaration
	// HealAt is when the fault phase ended; End is when the run ended.
	HealAt, End Time
}

// FaultsAt returns the fault windows in force at t (Start <= t <= End),
// in their order.
func (h *History) FaultsAt(t Time) []FaultWindow {
	var active []FaultWindow
	for _, w := range h.Faults {
		if w.Start <= t && t <= w.End {
			active = append(active, w)
		}
	}
	return active
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
