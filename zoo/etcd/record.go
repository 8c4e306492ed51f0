package etcd

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/zoo/etcd/internal/wire"
)

// LeaseServer is the etcd cluster's name as the history's one lease server.
const LeaseServer = "etcd"

// StoreName is the fenced store's node name in the history.
const StoreName = "store"

// recorder turns the holders' reports and the fenced store's decisions into
// the history.
type recorder struct {
	mu       sync.Mutex
	ops      []history.Operation // etcd's, in the order reported
	storeOps []history.Operation
	open     map[string]*history.BeliefInterval // by holder
	beliefs  []history.BeliefInterval
	premises []history.PremiseRecord
}

func newRecorder() *recorder { return &recorder{open: map[string]*history.BeliefInterval{}} }

func (r *recorder) storeOp(o history.Operation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o.ID = uint64(len(r.storeOps) + 1)
	r.storeOps = append(r.storeOps, o)
}

func payload(p wire.Payload) history.Payload {
	return history.Payload{Kind: p.Kind, Err: p.Err, OK: p.OK, Resource: p.Resource, Key: p.Key, Value: p.Value,
		Token: p.Token, TTL: time.Duration(p.TTL), Lease: p.Lease, Revision: p.Revision}
}

// report takes one report of holder (life).
func (r *recorder) report(holder string, life uint64, rep wire.Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch rep.Kind {
	case wire.KindOp:
		o := rep.Op
		op := history.Operation{Server: LeaseServer, Client: holder, Incarnation: life, ID: o.ID,
			Call: history.Time(o.Call), Return: history.Time(o.Return), Processed: history.Unknown,
			Input: payload(o.In), Output: payload(o.Out)}
		if o.Return < 0 {
			op.Return, op.Output = history.Never, history.Payload{}
		}
		r.ops = append(r.ops, op)
	case wire.KindBelieve:
		r.closeOpen(holder, history.Time(rep.Start), history.EndLost)
		r.open[holder] = &history.BeliefInterval{Holder: holder, Incarnation: life, Resource: rep.Resource,
			Token: rep.Token, Start: history.Time(rep.Start), End: history.Never,
			LocalDeadline: time.Duration(rep.Deadline), LastAct: history.Unknown}
	case wire.KindDeadline:
		if b := r.open[holder]; b != nil {
			b.LocalDeadline = time.Duration(rep.Deadline)
		}
	case wire.KindEnd:
		if b := r.open[holder]; b != nil && b.Token == rep.Token {
			r.closeOpen(holder, history.Time(rep.End), history.EndReason(rep.Reason))
		}
	case wire.KindAction:
		r.act(holder, life, rep.Resource, rep.Token, history.Time(rep.At))
	case wire.KindPremise:
		r.premises = append(r.premises, history.PremiseRecord{Name: holder + ": " + rep.Name, Held: rep.Held, Detail: rep.Detail})
	}
}

// act applies an action as a history file's reader does (leasewire): it
// stretches the holder's latest belief under the token that began by then
// to the action, or, with none, records a belief of one instant inferred
// from it. So the history in memory is the one its file reads back as.
// Under mu.
func (r *recorder) act(holder string, life uint64, resource string, token uint64, at history.Time) {
	if b := r.open[holder]; b != nil && b.Resource == resource && b.Token == token && b.Start <= at {
		b.LastAct = max(b.LastAct, at)
		return
	}
	for i := len(r.beliefs) - 1; i >= 0; i-- {
		if b := &r.beliefs[i]; b.Holder == holder && b.Incarnation == life && b.Resource == resource &&
			b.Token == token && b.Start <= at {
			b.LastAct, b.End = max(b.LastAct, at), max(b.End, at)
			return
		}
	}
	r.beliefs = append(r.beliefs, history.BeliefInterval{Holder: holder, Incarnation: life, Resource: resource,
		Token: token, Start: at, End: at, Reason: history.EndLost, LastAct: at, Inferred: true})
}

// closeOpen ends holder's open belief at at (or at its last action under the
// token, if later: it acted on the belief until then). Under mu.
func (r *recorder) closeOpen(holder string, at history.Time, reason history.EndReason) {
	b := r.open[holder]
	if b == nil {
		return
	}
	b.End, b.Reason = max(at, b.Start), reason
	if b.LastAct != history.Unknown && b.LastAct > b.End {
		b.End = b.LastAct
	}
	r.beliefs = append(r.beliefs, *b)
	delete(r.open, holder)
}

// closeHolder ends holder's open belief (a crash, the run's end).
func (r *recorder) closeHolder(holder string, at history.Time, reason history.EndReason) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closeOpen(holder, at, reason)
}

// history returns the recorded history; cfg says what the run declared.
func (r *recorder) history(cfg *Config, end history.Time, windows []history.FaultWindow) *history.History {
	r.mu.Lock()
	defer r.mu.Unlock()
	bs := slices.Clone(r.beliefs)
	slices.SortFunc(bs, func(a, b history.BeliefInterval) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Holder, b.Holder), cmp.Compare(a.Token, b.Token))
	})
	heal := history.Time(cfg.Schedule.HealAt)
	if len(cfg.Schedule.Events) == 0 {
		heal = 0
	}
	var ops []history.Operation
	if cfg.OmitLessorOps == "" {
		ops = lessorOps(r.ops)
	}
	h := &history.History{Spec: "lessor", Lease: history.Lease{TTL: cfg.TTL}, Grantor: LeaseServer,
		Resource: StoreName, Beliefs: bs, Faults: windows,
		Contended: []string{cfg.resource()}, Premises: slices.Clone(r.premises), HealAt: heal, End: end}
	h.SetOps(append(ops, r.storeOps...))
	return h
}

// lessorKinds are the operations the lessor specification reads
// (model.LessorOp); a Mutex's Lock and Unlock are not among them (Lock is
// recorded as its create transaction, Unlock is a Delete, which the
// specification does not model).
var lessorKinds = []string{"grant", "keepalive", "revoke", "put", "create", "get"}

// lessorOps returns the operations of ops the lessor specification reads,
// those whose reply came, each processed (the specification's time) when
// its holder saw the member's answer: a real etcd does not say when it
// processed a request, and on loopback the answer is no more than the
// reply's way back old.
func lessorOps(ops []history.Operation) []history.Operation {
	var out []history.Operation
	for _, o := range ops {
		if slices.Contains(lessorKinds, o.Input.Kind) && o.Returned() && o.Output.Err == "" {
			o.Processed = o.Return
			out = append(out, o)
		}
	}
	return out
}

// etcdOps returns every operation the holders reported on etcd.
func (r *recorder) etcdOps() []history.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ops)
}
