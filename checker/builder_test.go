package checker

import (
	"maps"
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
)

// hb builds crafted histories for the checker tests, in the order the
// story reads. Every op is processed at the time given, sent 1 ms before
// and returned 1 ms after. Acquires hand over the latest checkpoint the
// builder saw accepted, as a correct grantor does; handing explicitly
// builds a broken one.
type hb struct {
	h      *history.History
	reqID  uint64
	latest map[string]lease.Message // latest accepted checkpoint request, per resource
}

const ms = history.Time(time.Millisecond)

// at returns true time t milliseconds into the run.
func at(t int64) history.Time { return history.Time(t) * ms }

func testConfig() lease.Config {
	return lease.Config{TTL: 5 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond}.WithDefaults()
}

// testLease is testConfig as a history records it.
func testLease() history.Lease { return leasewire.Lease(testConfig()) }

// newHistory starts a two-minute run that heals at one minute.
func newHistory() *hb {
	return &hb{
		h: &history.History{Spec: leasewire.SpecLeaseStore, Lease: testLease(), Grantor: "grantor", Resource: "store",
			HealAt: at(60_000), End: at(120_000)},
		latest: make(map[string]lease.Message),
	}
}

func (b *hb) build() *history.History { return b.h }

func (b *hb) span(heal, end history.Time) *hb {
	b.h.HealAt, b.h.End = heal, end
	return b
}

// belief adds a belief that ended at its deadline.
func (b *hb) belief(holder, res string, token uint64, start, end history.Time) *hb {
	return b.beliefEnded(holder, res, token, start, end, history.EndDeadline)
}

func (b *hb) beliefEnded(holder, res string, token uint64, start, end history.Time, why history.EndReason) *hb {
	b.h.Beliefs = append(b.h.Beliefs, history.BeliefInterval{Holder: holder, Resource: res, Token: token,
		Start: start, End: end, Reason: why, LastAct: -1})
	return b
}

// op adds a processed operation; the server follows from the kind.
func (b *hb) op(client string, t history.Time, in, out lease.Message) *hb {
	server := b.h.Grantor
	if in.Kind == lease.KindWrite || in.Kind == lease.KindRead || in.Kind == lease.KindEffect {
		server = b.h.Resource
	}
	b.reqID++
	in.ReqID, in.Client = b.reqID, lease.Addr(client)
	out.Kind, out.ReqID, out.Resource = in.Kind.Reply(), in.ReqID, in.Resource
	b.h.AppendOp(leasewire.NewOperation(client, server, t-ms, t, t+ms, in, out))
	return b
}

// editOp changes operation i of h with edit. A history gives copies of
// its operations; the test sets them all again.
func editOp(h *history.History, i int, edit func(op *history.Operation)) {
	ops := h.CopyOps()
	edit(&ops[i])
	h.SetOps(ops)
}

// withOps gives h the operations ops and returns it.
func withOps(h *history.History, ops []history.Operation) *history.History {
	h.SetOps(ops)
	return h
}

// calledAt sets when the last op's request was sent.
func (b *hb) calledAt(t history.Time) *hb {
	editOp(b.h, b.h.NumOps()-1, func(op *history.Operation) { op.Call = t })
	return b
}

// lost marks the last op's reply as never arriving.
func (b *hb) lost() *hb {
	editOp(b.h, b.h.NumOps()-1, func(op *history.Operation) { op.Return = history.Never })
	return b
}

// acquire grants res to client with token, handing over the latest
// accepted checkpoint.
func (b *hb) acquire(client, res string, token uint64, t history.Time) *hb {
	c := b.latest[res]
	return b.acquireHanding(client, res, token, t, string(c.State), c.Token)
}

// acquireHanding grants res to client with token, handing over state of
// ckptToken.
func (b *hb) acquireHanding(client, res string, token uint64, t history.Time, state string, ckptToken uint64) *hb {
	var st []byte
	if state != "" {
		st = []byte(state)
	}
	return b.op(client, t, lease.Message{Kind: lease.KindAcquire, Resource: res, TTL: b.h.Lease.TTL},
		lease.Message{Token: token, TTL: b.h.Lease.TTL, Holder: lease.Addr(client), State: st, CheckpointToken: ckptToken})
}

// acquireKeys grants res to client with token and the keys attached.
func (b *hb) acquireKeys(client, res string, token uint64, t history.Time, keys ...string) *hb {
	kvs := make([]lease.KV, len(keys))
	for i, k := range keys {
		kvs[i] = lease.KV{Key: k, Value: []byte(client)}
	}
	return b.op(client, t, lease.Message{Kind: lease.KindAcquire, Resource: res, TTL: b.h.Lease.TTL, Keys: kvs},
		lease.Message{Token: token, TTL: b.h.Lease.TTL})
}

// refused adds an acquire the grantor refused with code.
func (b *hb) refused(client, res string, t history.Time, code lease.ErrCode) *hb {
	return b.op(client, t, lease.Message{Kind: lease.KindAcquire, Resource: res, TTL: b.h.Lease.TTL},
		lease.Message{Err: code})
}

func (b *hb) renew(client, res string, token uint64, t history.Time, code lease.ErrCode) *hb {
	out := lease.Message{Err: code}
	if code == lease.CodeOK {
		out.Token, out.TTL = token, b.h.Lease.TTL
	}
	return b.op(client, t, lease.Message{Kind: lease.KindRenew, Resource: res, Token: token}, out)
}

func (b *hb) write(client, res string, token uint64, t history.Time, code lease.ErrCode) *hb {
	return b.op(client, t, lease.Message{Kind: lease.KindWrite, Resource: res, Token: token, Key: "x"},
		lease.Message{Token: token, Err: code})
}

// writeKey adds a write of key under token, accepted or refused (code).
func (b *hb) writeKey(client, res, key string, token uint64, t history.Time, code lease.ErrCode) *hb {
	return b.op(client, t, lease.Message{Kind: lease.KindWrite, Resource: res, Token: token, Key: key},
		lease.Message{Token: token, Err: code})
}

// read adds a read of key under token that returned value, written under
// wrote.
func (b *hb) read(client, res, key string, token uint64, t history.Time, value string, wrote uint64) *hb {
	return b.op(client, t, lease.Message{Kind: lease.KindRead, Resource: res, Token: token, Key: key},
		lease.Message{Key: key, Token: wrote, Value: []byte(value)})
}

// checkpoint adds a checkpoint request; if accepted, the builder's grantor
// stores it.
func (b *hb) checkpoint(client, res string, token uint64, t history.Time, state string, code lease.ErrCode) *hb {
	in := lease.Message{Kind: lease.KindCheckpoint, Resource: res, Token: token, State: []byte(state)}
	b.op(client, t, in, lease.Message{Token: token, CheckpointToken: token, Err: code})
	if code == lease.CodeOK {
		b.latest[res] = in
	}
	return b
}

// list adds a registry listing by reader that sees keys.
func (b *hb) list(reader string, t history.Time, keys ...string) *hb {
	b.op(reader, t, lease.Message{Kind: lease.KindList, Prefix: registryPrefix}, lease.Message{})
	for _, k := range keys {
		b.h.Sightings = append(b.h.Sightings, history.RegistrationSighted{Reader: reader, Key: k, Owner: "?", At: t})
	}
	return b
}

func (b *hb) task(id string, units int, unitTime time.Duration, arrival, done history.Time) *hb {
	b.h.Tasks = append(b.h.Tasks, history.TaskRecord{ID: id, Units: units, Arrival: arrival, Done: done,
		DoneUnanswered: history.Never, UnitTime: unitTime})
	return b
}

// unanswered says that a worker asked at t to checkpoint the last task
// added done and got no answer.
func (b *hb) unanswered(t history.Time) *hb {
	b.h.Tasks[len(b.h.Tasks)-1].DoneUnanswered = t
	return b
}

// units adds units from..to-1 of task under token, one every 100 ms from t.
func (b *hb) units(task, worker string, token uint64, from, to int, t history.Time) *hb {
	for i := from; i < to; i++ {
		b.h.Units = append(b.h.Units, history.UnitDone{Task: task, Index: i, Worker: worker, Token: token,
			At: t + history.Time(i-from)*100*ms})
	}
	return b
}

func (b *hb) effect(res, id string, t history.Time) *hb {
	b.h.Effects = append(b.h.Effects, history.SideEffect{From: "w1", Resource: res, ID: id, At: t})
	return b
}

func (b *hb) fault(kind, node string, start, end history.Time) *hb {
	return b.faultDetail(kind, node, "", "", start, end)
}

func (b *hb) faultDetail(kind, node, peer, detail string, start, end history.Time) *hb {
	var nodes []string
	for _, n := range []string{node, peer} {
		if n != "" {
			nodes = append(nodes, n)
		}
	}
	b.h.Faults = append(b.h.Faults, history.FaultWindow{Kind: kind, Nodes: nodes, Start: start, End: end,
		Detail: detail})
	return b
}

func (b *hb) drift(ppb int64) *hb {
	b.h.MaxDriftPPB = ppb
	return b
}

func (b *hb) contended(res ...string) *hb {
	b.h.Contended = append(b.h.Contended, res...)
	return b
}

// clone returns an independent copy of the builder and its history.
func (b *hb) clone() *hb {
	h := *b.h
	h.SetOps(b.h.CopyOps())
	h.Beliefs, h.Units = slices.Clone(h.Beliefs), slices.Clone(h.Units)
	h.Tasks, h.Effects, h.Sightings = slices.Clone(h.Tasks), slices.Clone(h.Effects), slices.Clone(h.Sightings)
	h.Faults, h.Contended = slices.Clone(h.Faults), slices.Clone(h.Contended)
	return &hb{h: &h, reqID: b.reqID, latest: maps.Clone(b.latest)}
}
