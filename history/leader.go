package history

import "time"

// TypeLeader is the "type" of a LeaderTerm record.
const TypeLeader Type = "leader"

// LeaderTerm is an interval of true time in which one member of a
// replicated lease store led (raft's leader, the primary lessor), with
// what the store declared about how its leader times leases. It is
// protocol-neutral: any store whose leader alone expires leases and whose
// new leader restores them can report it. P3 reads it to bound how long a
// lease may outlive its last renewal across leader changes
// (model.LessorBound).
type LeaderTerm struct {
	// Server is the member that led, and Members every member of the
	// store as the leader knows them (quorum is a majority of them).
	Server  string
	Members []string
	// Term is the leader's term (raft's), a number that grows with each
	// election.
	Term uint64
	// Start is when the member became leader (and restored every lease);
	// End when it stopped leading, crashed, or the run ended.
	Start, End Time
	// Extension is what a new leader adds to every lease's remaining TTL
	// when it takes over (etcd's election timeout), on its own clock.
	Extension time.Duration
	// CheckpointInterval is how often the leader records every lease's
	// remaining TTL through the log, on its own clock; zero: never, a new
	// leader restores the full TTL.
	CheckpointInterval time.Duration
	// CheckPeriod is how often the leader looks for expired leases to
	// revoke, on its own clock.
	CheckPeriod time.Duration
}

// Type returns TypeLeader.
func (*LeaderTerm) Type() Type { return TypeLeader }

type leaderWire struct {
	Type               Type     `json:"type"`
	Server             string   `json:"server,omitzero"`
	Members            []string `json:"members,omitempty"`
	Term               *uint64  `json:"term"`
	Start              *int64   `json:"start_ns"`
	End                *int64   `json:"end_ns"`
	Extension          int64    `json:"extension_ns,omitzero"`
	CheckpointInterval int64    `json:"checkpoint_interval_ns,omitzero"`
	CheckPeriod        int64    `json:"check_period_ns,omitzero"`
}

func (l *LeaderTerm) toWire() any {
	return &leaderWire{Type: TypeLeader, Server: l.Server, Members: l.Members, Term: ptr(l.Term),
		Start: timePtr(l.Start), End: timePtr(l.End), Extension: int64(l.Extension),
		CheckpointInterval: int64(l.CheckpointInterval), CheckPeriod: int64(l.CheckPeriod)}
}

func (w *leaderWire) event() (Event, *fieldError) {
	var m missing
	return &LeaderTerm{Server: w.Server, Members: orNil(w.Members), Term: need(&m, "term", w.Term),
		Start: Time(need(&m, "start_ns", w.Start)), End: Time(need(&m, "end_ns", w.End)),
		Extension: time.Duration(w.Extension), CheckpointInterval: time.Duration(w.CheckpointInterval),
		CheckPeriod: time.Duration(w.CheckPeriod)}, m.err
}

func (l *LeaderTerm) check() *fieldError {
	if err := first(name("server", l.Server), names("members", l.Members), span("start_ns", l.Start, "end_ns", l.End),
		nonNegative("extension_ns", l.Extension), nonNegative("checkpoint_interval_ns", l.CheckpointInterval),
		nonNegative("check_period_ns", l.CheckPeriod)); err != nil {
		return err
	}
	for _, m := range l.Members {
		if m == l.Server {
			return nil
		}
	}
	if len(l.Members) > 0 {
		return badf("members", "the leader %q is not one of them", l.Server)
	}
	return nil
}

func (l *LeaderTerm) bounds() (Time, Time) { return l.Start, l.End }
