package realtime

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
)

// Recorder records the history of a real run, in the protocol-neutral
// schema of package history, so that a real run can be judged by the same
// checkers as a simulated one (simrun check). It is to a real run what the
// simulator's recorder (package scenarios) is to a simulated one: it
// watches what each node sends and receives and what its holders report,
// and only reads. True time is the host's monotonic clock since
// NewRecorder; every node of a run shares that clock, so no drift is
// recorded between them.
//
// Pass one Recorder in Options.Recorder to every node of a run, then call
// Records or WriteHistory once the run is over. It is safe for concurrent
// use by the nodes' loops.
type Recorder struct {
	start time.Time

	mu         sync.Mutex
	config     lease.Config
	grantors   []string
	resources  []string
	holders    []string
	calls      map[recKey]int // requests sent, as indices into sent
	sent       []recCall
	unreturned map[recKey][]int // ops whose reply has not reached the client yet
	ops        []history.Operation
	actions    []history.Action
	effects    []history.SideEffect
	sightings  []history.RegistrationSighted
	beliefs    beliefs
}

// recKey identifies a request: the client, its request id, and the
// client's clock reading when it sent it.
type recKey struct {
	client string
	reqID  uint64
	sentAt time.Duration
}

type recCall struct {
	at     history.Time
	server string
	in     lease.Message
}

// NewRecorder returns a recorder whose true time starts now.
func NewRecorder() *Recorder {
	return &Recorder{start: time.Now(), calls: make(map[recKey]int), unreturned: make(map[recKey][]int)}
}

// since returns t in true time.
func (r *Recorder) since(t time.Time) history.Time { return history.Time(t.Sub(r.start)) }

// now returns the current true time; call with r.mu held, so that records
// are in time order.
func (r *Recorder) now() history.Time { return r.since(time.Now()) }

// The roles of the nodes, as the header lists them. Each is nil-safe.

func (r *Recorder) addGrantor(a lease.Addr, cfg lease.Config) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.grantors) == 0 {
		r.config = cfg
	}
	r.grantors = append(r.grantors, string(a))
}

func (r *Recorder) addResource(a lease.Addr) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.resources = append(r.resources, string(a))
}

func (r *Recorder) addHolder(a lease.Addr) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.holders = append(r.holders, string(a))
}

// sending sees node from send m to node to, on from's loop.
func (r *Recorder) sending(from, to lease.Addr, m lease.Message) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	switch m.Kind {
	case lease.KindEffect, lease.KindEffectReply:
		return // recorded as effects where they happen, not as operations
	case lease.KindWrite, lease.KindCheckpoint:
		if m.Token != 0 {
			r.actions = append(r.actions, history.Action{Holder: string(from), Resource: m.Resource, Token: m.Token,
				At: now, What: m.Kind.String()})
			r.beliefs.act(string(from), m.Resource, m.Token, now)
		}
	}
	if m.Kind.IsRequest() {
		key := recKey{client: string(from), reqID: m.ReqID, sentAt: m.SentAt}
		if _, seen := r.calls[key]; !seen {
			r.calls[key] = len(r.sent)
			r.sent = append(r.sent, recCall{at: now, server: string(to), in: m})
		}
		return
	}
	// A reply: the server processed a request. Each processing is one
	// operation, so a request processed twice is two.
	key := recKey{client: string(to), reqID: m.ReqID, sentAt: m.SentAt}
	i, ok := r.calls[key]
	if !ok || r.sent[i].in.Kind.Reply() != m.Kind {
		return // not a reply to a recorded request
	}
	c := r.sent[i]
	r.ops = append(r.ops, leasewire.NewOperation(key.client, string(from), c.at, now, history.Never, c.in, m))
	r.unreturned[key] = append(r.unreturned[key], len(r.ops)-1)
	if m.Kind == lease.KindListReply {
		for _, kv := range m.Keys {
			r.sightings = append(r.sightings, history.RegistrationSighted{Reader: key.client, Key: kv.Key,
				Owner: string(kv.Value), At: now})
		}
	}
}

// delivered sees m from node from reach node to, on to's loop, once the
// node has handled it: a reply returns when the client has taken it in, so
// a belief it started began no later than its return, as in the
// simulator, where both are one instant.
func (r *Recorder) delivered(from, to lease.Addr, m lease.Message) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if m.Kind == lease.KindEffect {
		r.effects = append(r.effects, history.SideEffect{From: string(from), Resource: m.Resource, ID: m.Key, At: now})
		return
	}
	if m.Kind.IsRequest() {
		return
	}
	key := recKey{client: string(to), reqID: m.ReqID, sentAt: m.SentAt}
	if idx := r.unreturned[key]; len(idx) > 0 {
		r.ops[idx[0]].Return = now
		r.unreturned[key] = idx[1:]
	}
}

// crashed ends the open beliefs of a holder that stopped without
// releasing (Holder.Kill).
func (r *Recorder) crashed(a lease.Addr) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.beliefs.crash(string(a), r.now())
}

// Producer is the producer a Recorder's header names.
const Producer = "lease/realtime"

// Records returns the history recorded so far: the header (determinism
// statistical, the first grantor's lease configuration and its
// specification), the events (operations, beliefs, actions, effects,
// sightings, then the write and checkpoint records the operations imply)
// and the end record, now. Beliefs still open end now (reason "end"),
// or at their deadline if it came first; the recorder itself keeps them
// open.
func (r *Recorder) Records() (history.Header, []history.Event, history.RunEnd) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	head := history.Header{Version: history.SchemaVersion, Producer: Producer,
		Spec: leasewire.Spec(r.config.DriftSplit), Determinism: history.Statistical,
		Lease: leasewire.Lease(r.config), LeaseServers: slices.Clone(r.grantors), FencedServers: slices.Clone(r.resources),
		Holders: slices.Clone(r.holders), Start: 0, Heal: history.Unknown}
	ops := slices.Clone(r.ops)
	beliefs := r.beliefs.snapshot(now)
	var events []history.Event
	var resources []string
	for i := range ops {
		events = append(events, &ops[i])
		if ops[i].Input.Kind != lease.KindList.String() && slices.Contains(r.grantors, ops[i].Server) {
			resources = append(resources, ops[i].Input.Resource)
		}
	}
	for i := range beliefs {
		events = append(events, &beliefs[i])
		resources = append(resources, beliefs[i].Resource)
	}
	for _, a := range r.actions {
		events = append(events, &a)
	}
	for _, e := range r.effects {
		events = append(events, &e)
	}
	for _, s := range r.sightings {
		events = append(events, &s)
	}
	events = append(events, leasewire.Derived(ops, head.FencedServers)...)
	slices.Sort(resources)
	head.Resources = slices.Compact(resources)
	return head, events, history.RunEnd{At: now, MaxDriftPPB: 0}
}

// WriteHistory writes Records as a history file (JSON lines).
func (r *Recorder) WriteHistory(w io.Writer) error {
	head, events, end := r.Records()
	wr, err := history.NewWriter(w, head)
	if err != nil {
		return fmt.Errorf("realtime: history header: %w", err)
	}
	for _, e := range events {
		if err := wr.Write(e); err != nil {
			return fmt.Errorf("realtime: history %s record: %w", e.Type(), err)
		}
	}
	if err := wr.End(end); err != nil {
		return fmt.Errorf("realtime: history end record: %w", err)
	}
	return nil
}
