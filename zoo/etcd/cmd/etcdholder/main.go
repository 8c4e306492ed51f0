// Command etcdholder is one lock holder of the zoo/etcd harness, in its own
// process so that the harness can pause it (SIGSTOP) and kill it (SIGKILL)
// like any real client. It uses go.etcd.io/etcd/client/v3/concurrency
// unchanged (a Session with a TTL, a Mutex) and reports what it does, one JSON
// object a line on stdout (package internal/wire): its operations on etcd, its
// belief that it holds the lock, the writes it sends to the harness's fenced
// store under the lock key's create revision, and the premises of its script.
//
// Its belief starts when Lock returns and ends at its own deadline (the TTL
// after the grant's call or after the keepalive request that was last
// answered was sent: a bound etcd's expiry cannot come before, on the
// monotonic clock), or earlier when
// its code sees it end: the session's Done channel closed, its write was
// fenced, or it unlocked. A belief is "I hold it until my deadline", so a
// stopped holder's belief still ends at its deadline, which the holder
// reports once it runs again. Its writer decides to write (the belief holds
// and its deadline has not passed: the action, reported then, as every
// host counts it), works for -work, then writes: the check-then-act of
// every lock user, which a pause can split.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/zoo/etcd/internal/wire"
)

// Scripts, in -script.
const (
	scriptLock        = "lock"         // lock at -lock-at, hold (writing) until -release-at or the belief ends
	scriptStaleUnlock = "stale-unlock" // etcd #22082: unlock at -release-at, relock, retry the old unlock at -retry-at
)

type config struct {
	name, script, resource, prefix, store string
	endpoints                             []string
	life                                  uint64
	ttl                                   int
	clock                                 wire.Clock
	lockAt, releaseAt, retryAt            time.Duration
	work, unlockTimeout                   time.Duration
}

func main() {
	var c config
	var endpoints string
	var startMono int64
	flag.StringVar(&c.name, "name", "h1", "holder name")
	flag.Uint64Var(&c.life, "life", 1, "incarnation")
	flag.StringVar(&c.script, "script", scriptLock, "lock or stale-unlock")
	flag.StringVar(&c.resource, "resource", "lock", "the resource the lock guards (history name)")
	flag.StringVar(&c.prefix, "prefix", "/leasesim/lock", "the mutex's key prefix")
	flag.StringVar(&endpoints, "endpoints", "", "etcd client endpoints, comma-separated")
	flag.StringVar(&c.store, "store", "", "the fenced store's address")
	flag.IntVar(&c.ttl, "ttl", 2, "session TTL in seconds")
	flag.Int64Var(&startMono, "start-mono", 0, "CLOCK_MONOTONIC of the run's start, in ns")
	flag.DurationVar(&c.lockAt, "lock-at", 0, "when to call Lock (true time)")
	flag.DurationVar(&c.releaseAt, "release-at", 0, "when to Unlock (0: never)")
	flag.DurationVar(&c.retryAt, "retry-at", 0, "stale-unlock: when to retry the failed Unlock")
	flag.DurationVar(&c.work, "work", 200*time.Millisecond, "work between checking the belief and writing")
	flag.DurationVar(&c.unlockTimeout, "unlock-timeout", 500*time.Millisecond, "Unlock's context timeout")
	flag.Parse()
	c.endpoints = strings.Split(endpoints, ",")
	c.clock = wire.Clock{StartMono: startMono}
	if endpoints == "" || c.store == "" || startMono == 0 {
		fmt.Fprintln(os.Stderr, "etcdholder: -endpoints, -store and -start-mono are required")
		os.Exit(2)
	}
	h := &holder{cfg: c, out: json.NewEncoder(os.Stdout)}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := h.run(ctx); err != nil && ctx.Err() == nil {
		h.logf("error: %v", err)
		fmt.Fprintf(os.Stderr, "etcdholder %s: %v\n", c.name, err)
		os.Exit(1)
	}
}

// holder is one holder process's state.
type holder struct {
	cfg    config
	mu     sync.Mutex
	out    *json.Encoder
	nextID uint64

	// The open belief (under mu).
	believing bool
	token     uint64
	deadline  time.Duration // true time; the TTL after the last answered keepalive request was sent
	lastAct   time.Duration
	ended     chan struct{} // closed when the belief ends

	lease clientv3.LeaseID // the current session's lease
	// sent are, per lease, the times keepalive requests were sent whose
	// responses have not come yet, oldest first (keepaliveSends).
	sent map[int64][]time.Duration

	store     net.Conn
	storeRead *bufio.Reader
	writes    int
}

func (h *holder) now() time.Duration { return h.cfg.clock.Now() }

func (h *holder) report(r wire.Report) {
	h.mu.Lock()
	defer h.mu.Unlock()
	_ = h.out.Encode(r)
}

func (h *holder) logf(format string, args ...any) {
	h.report(wire.Report{Kind: wire.KindLog, At: int64(h.now()), Detail: fmt.Sprintf(format, args...)})
}

func (h *holder) premise(name string, held bool, format string, args ...any) {
	h.report(wire.Report{Kind: wire.KindPremise, Name: name, Held: held, Detail: fmt.Sprintf(format, args...)})
}

// op reports one operation; ret < 0 means its reply never came.
func (h *holder) op(call, ret time.Duration, in, out wire.Payload) {
	h.mu.Lock()
	h.nextID++
	id := h.nextID
	h.mu.Unlock()
	r := int64(ret)
	if ret < 0 {
		r = -1
	}
	h.report(wire.Report{Kind: wire.KindOp, Op: &wire.Op{ID: id, Call: int64(call), Return: r, In: in, Out: out}})
}

func errName(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "error: " + err.Error()
}

// sleepUntil waits until true time t or ctx's end.
func (h *holder) sleepUntil(ctx context.Context, t time.Duration) error {
	d := t - h.now()
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *holder) run(ctx context.Context) error {
	if err := h.sleepUntil(ctx, h.cfg.lockAt); err != nil {
		return err
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints: h.cfg.endpoints, DialTimeout: 5 * time.Second,
		DialKeepAliveTime: time.Second, DialKeepAliveTimeout: time.Second,
		Logger:      zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithChainStreamInterceptor(h.keepaliveSends)},
	})
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	defer cli.Close()
	cli.Lease = &recordingLease{Lease: cli.Lease, h: h}
	cli.KV = &recordingKV{KV: cli.KV, h: h}
	for {
		s, m := h.acquire(ctx, cli)
		if s == nil {
			return nil // the run ended
		}
		if h.cfg.script == scriptStaleUnlock {
			return h.staleUnlock(ctx, s, m)
		}
		if h.holdThenRelease(ctx, s, m) || ctx.Err() != nil {
			<-ctx.Done()
			return nil
		}
		// The belief ended without a release (session lost, own deadline,
		// fenced): contend again on a new session, as a lock loop does.
		s.Orphan()
		h.logf("belief ended; locking again on a new session")
		time.Sleep(100 * time.Millisecond)
	}
}

// acquire locks the mutex on a new session; a session that expires before
// the lock is taken (its keepalives failed while it waited) is replaced by
// a new one. It returns nils when ctx ends.
func (h *holder) acquire(ctx context.Context, cli *clientv3.Client) (*concurrency.Session, *concurrency.Mutex) {
	for ctx.Err() == nil {
		h.mu.Lock()
		h.deadline = 0
		h.mu.Unlock()
		s, err := concurrency.NewSession(cli, concurrency.WithTTL(h.cfg.ttl))
		if err == nil {
			h.mu.Lock()
			h.lease = s.Lease()
			h.mu.Unlock()
			var m *concurrency.Mutex
			if m, err = h.lock(ctx, s); err == nil {
				return s, m
			}
			s.Orphan()
		}
		if ctx.Err() != nil {
			break
		}
		h.logf("retrying with a new session: %v", err)
		time.Sleep(100 * time.Millisecond)
	}
	return nil, nil
}

// lock locks a new Mutex on the session, reads its key's create revision
// (the fencing token) and opens the belief.
func (h *holder) lock(ctx context.Context, s *concurrency.Session) (*concurrency.Mutex, error) {
	m := concurrency.NewMutex(s, h.cfg.prefix)
	call := h.now()
	err := m.Lock(ctx)
	ret := h.now()
	in := wire.Payload{Kind: "lock", Resource: h.cfg.resource, Key: h.cfg.prefix, Lease: uint64(s.Lease())}
	out := wire.Payload{Kind: "lock_reply", Err: errName(err), Key: m.Key()}
	if m.Header() != nil {
		out.Revision = m.Header().Revision
	}
	h.op(call, ret, in, out)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	rev, _, err := h.get(ctx, s.Client(), m.Key())
	if err != nil {
		return nil, err
	}
	if rev == 0 {
		h.logf("lock returned but key %s is gone", m.Key())
	}
	h.mu.Lock()
	late := h.deadline != 0 && ret >= h.deadline
	d := h.deadline
	h.mu.Unlock()
	select {
	case <-s.Done():
		h.logf("Lock returned at %v on a session already done (own deadline %v)", ret, d)
	default:
		if late {
			h.logf("Lock returned at %v, past the session's own deadline %v", ret, d)
		}
	}
	h.believe(uint64(rev), ret)
	return m, nil
}

// get reads key: its create revision (0: absent) and the store's revision.
func (h *holder) get(ctx context.Context, cli *clientv3.Client, key string) (create, rev int64, err error) {
	call := h.now()
	gctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	resp, err := cli.Get(gctx, key)
	cancel()
	ret := h.now()
	out := wire.Payload{Kind: "get_reply", Err: errName(err)}
	if err == nil {
		out.Revision = resp.Header.Revision
		if len(resp.Kvs) > 0 {
			out.OK, out.Token, out.Lease = true, uint64(resp.Kvs[0].CreateRevision), uint64(resp.Kvs[0].Lease)
			out.Version = strconv.FormatInt(resp.Kvs[0].ModRevision, 10)
			create = resp.Kvs[0].CreateRevision
		}
		rev = resp.Header.Revision
	} else {
		ret = -1
	}
	h.op(call, ret, wire.Payload{Kind: "get", Key: key}, out)
	if err != nil {
		return 0, 0, fmt.Errorf("get %s: %w", key, err)
	}
	return create, rev, nil
}

// unlock calls m.Unlock with -unlock-timeout and reports it.
func (h *holder) unlock(ctx context.Context, m *concurrency.Mutex, key string, token uint64) error {
	call := h.now()
	uctx, cancel := context.WithTimeout(ctx, h.cfg.unlockTimeout)
	err := m.Unlock(uctx)
	cancel()
	ret := h.now()
	if err != nil {
		ret = -1
	}
	h.op(call, ret, wire.Payload{Kind: "unlock", Resource: h.cfg.resource, Key: key, Token: token},
		wire.Payload{Kind: "unlock_reply", Err: errName(err)})
	return err
}

// believe opens a belief under token, started at start, and starts its
// watcher and writer.
func (h *holder) believe(token uint64, start time.Duration) {
	h.mu.Lock()
	h.believing, h.token, h.lastAct = true, token, -1
	if h.deadline == 0 {
		h.deadline = start + time.Duration(h.cfg.ttl)*time.Second
	}
	h.ended = make(chan struct{})
	d := h.deadline
	h.mu.Unlock()
	h.report(wire.Report{Kind: wire.KindBelieve, Resource: h.cfg.resource, Token: token, Start: int64(start), Deadline: int64(d)})
}

// endBelief ends the open belief (if any) for reason, now.
func (h *holder) endBelief(reason string) { h.endBeliefAt(reason, -1) }

// endBeliefAt ends the open belief (if any) for reason, at true time at
// (now if at < 0).
func (h *holder) endBeliefAt(reason string, at time.Duration) {
	h.mu.Lock()
	if !h.believing {
		h.mu.Unlock()
		return
	}
	h.believing = false
	close(h.ended)
	tok, last, d := h.token, h.lastAct, h.deadline
	h.mu.Unlock()
	if at < 0 {
		at = h.now()
		if d < at { // the deadline came first (a pause hid it from the code): the belief ended there
			at, reason = d, "deadline"
		}
	}
	h.report(wire.Report{Kind: wire.KindEnd, Resource: h.cfg.resource, Token: tok, End: int64(at), Reason: reason, LastAct: int64(last)})
}

// watch ends the belief when the session ends, as the holder's code sees
// it, or at the deadline, once it sees the deadline passed: it polls every
// 5ms.
func (h *holder) watch(ctx context.Context, s *concurrency.Session) {
	for {
		h.mu.Lock()
		on, d, ended := h.believing, h.deadline, h.ended
		h.mu.Unlock()
		if !on {
			return
		}
		select {
		case <-s.Done():
			h.endBelief("lost")
			return
		case <-ctx.Done():
			return
		case <-ended:
			return
		case <-time.After(5 * time.Millisecond):
		}
		if h.now() >= d {
			h.endBeliefAt("deadline", d)
			return
		}
	}
}

// writeLoop decides to write while the belief holds and its deadline has
// not passed (the action, reported at the decision), works, then writes
// under the token it decided with, until the belief ends.
func (h *holder) writeLoop(ctx context.Context) {
	for ctx.Err() == nil {
		h.mu.Lock()
		at := h.now()
		on, tok := h.believing && at < h.deadline, h.token
		if on {
			h.lastAct = at
			h.writes++
		}
		n := h.writes
		h.mu.Unlock()
		if !on {
			return
		}
		h.report(wire.Report{Kind: wire.KindAction, Resource: h.cfg.resource, Token: tok, At: int64(at)})
		select { // the work between the check and the act
		case <-time.After(h.cfg.work):
		case <-ctx.Done():
			return
		}
		if fenced := h.write(tok, n); fenced {
			h.endBelief("fenced")
			return
		}
	}
}

// write sends write n to the fenced store under tok; it reports whether
// the store refused it.
func (h *holder) write(tok uint64, n int) bool {
	if h.store == nil {
		c, err := net.Dial("tcp", h.cfg.store)
		if err != nil {
			h.logf("store dial: %v", err)
			return false
		}
		h.store, h.storeRead = c, bufio.NewReader(c)
	}
	req := gohost.StoreRequest{Resource: h.cfg.resource, Key: "data", Value: fmt.Sprintf("%s-%d", h.cfg.name, n),
		Token: tok, Writer: h.cfg.name, Life: h.cfg.life}
	b, _ := json.Marshal(req)
	var rep gohost.StoreReply
	_, err := h.store.Write(append(b, '\n'))
	if err == nil {
		var line []byte
		if line, err = h.storeRead.ReadBytes('\n'); err == nil {
			err = json.Unmarshal(line, &rep)
		}
	}
	if err != nil {
		h.logf("store: %v", err)
		h.store.Close()
		h.store = nil
		return false
	}
	return !rep.OK
}

// holdThenRelease holds the lock, writing, until -release-at (then unlocks
// and returns true) or until the belief ends or the run does.
func (h *holder) holdThenRelease(ctx context.Context, s *concurrency.Session, m *concurrency.Mutex) bool {
	go h.watch(ctx, s)
	go h.writeLoop(ctx)
	h.mu.Lock()
	ended, tok := h.ended, h.token
	h.mu.Unlock()
	var release <-chan time.Time
	if h.cfg.releaseAt > 0 {
		release = time.After(h.cfg.releaseAt - h.now())
	}
	select {
	case <-ended:
		return false
	case <-release:
		key := m.Key()
		h.endBelief("release")
		_ = h.unlock(ctx, m, key, tok)
		return true
	case <-ctx.Done():
		return false
	}
}

// staleUnlock is etcd #22082: at -release-at it unlocks (the harness drops
// the response), locks again on the same session (the same key, a newer
// create revision), and at -retry-at retries the first Unlock, which deletes
// the newer key. It then holds the newer lock, writing, until the run ends.
func (h *holder) staleUnlock(ctx context.Context, s *concurrency.Session, m1 *concurrency.Mutex) error {
	go h.watch(ctx, s)
	go h.writeLoop(ctx)
	h.mu.Lock()
	tok1 := h.token
	h.mu.Unlock()
	if err := h.sleepUntil(ctx, h.cfg.releaseAt); err != nil {
		return nil
	}
	key := m1.Key()
	h.endBelief("release")
	uerr := h.unlock(ctx, m1, key, tok1)
	if uerr == nil {
		h.premise("unlock-response-lost", false, "the first Unlock of %s returned without error", key)
		<-ctx.Done()
		return nil
	}
	create, _, err := h.get(ctx, s.Client(), key)
	if err != nil {
		h.premise("unlock-response-lost", false, "the first Unlock failed (%v) and reading %s failed: %v", uerr, key, err)
		<-ctx.Done()
		return nil
	}
	h.premise("unlock-response-lost", create == 0, "the first Unlock of %s (create revision %d) failed with %v; "+
		"the key's create revision afterwards: %d (0: deleted, the Unlock committed)", key, tok1, uerr, create)
	m2, err := h.lock(ctx, s)
	if err != nil {
		return err
	}
	h.mu.Lock()
	tok2 := h.token
	h.mu.Unlock()
	h.premise("relocked-same-key", m2.Key() == key && tok2 > tok1, "a second Mutex on the same session locked %s at "+
		"create revision %d (the first had %d)", m2.Key(), tok2, tok1)
	go h.watch(ctx, s)
	go h.writeLoop(ctx)
	if err := h.sleepUntil(ctx, h.cfg.retryAt); err != nil {
		return nil
	}
	rerr := h.unlock(ctx, m1, key, tok1)
	after, _, gerr := h.get(ctx, s.Client(), key)
	h.premise("retry-deleted-newer", rerr == nil && gerr == nil && after == 0, "the retried Unlock of the first Mutex "+
		"returned %v; the key's create revision afterwards: %d (the second Mutex holds %d and still believes)",
		rerr, after, tok2)
	<-ctx.Done()
	return nil
}

// keepaliveSends is a gRPC stream interceptor that notes when clientv3's
// lessor sends each keepalive request (it sends them itself, on one stream
// whose responses come in order): a response answers the oldest request
// of its lease still unanswered (takeSent).
func (h *holder) keepaliveSends(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		return cs, err
	}
	return &sendNoting{ClientStream: cs, h: h}, nil
}

// sendNoting notes the send time of every keepalive request on its stream.
type sendNoting struct {
	grpc.ClientStream
	h *holder
}

// SendMsg notes a keepalive request's time, before it leaves.
func (s *sendNoting) SendMsg(m any) error {
	if r, ok := m.(*pb.LeaseKeepAliveRequest); ok {
		at := s.h.now()
		s.h.mu.Lock()
		if s.h.sent == nil {
			s.h.sent = map[int64][]time.Duration{}
		}
		s.h.sent[r.ID] = append(s.h.sent[r.ID], at)
		s.h.mu.Unlock()
	}
	return s.ClientStream.SendMsg(m)
}

// takeSent returns when the request a response of lease id answers was
// sent (the oldest unanswered), or fallback if none was noted. A response
// the lessor dropped leaves its request behind, so a later response is
// taken to answer an earlier request: earlier, never later, than the truth.
func (h *holder) takeSent(id clientv3.LeaseID, fallback time.Duration) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	q := h.sent[int64(id)]
	if len(q) == 0 {
		return fallback
	}
	h.sent[int64(id)] = q[1:]
	return q[0]
}

// recordingLease is the client's Lease with its Grant and keepalive
// responses reported; each response moves the holder's deadline to the TTL
// after the call it answers (the grant's call, or when the keepalive
// request was sent: keepaliveSends), which etcd's expiry of the lease
// cannot come before.
type recordingLease struct {
	clientv3.Lease
	h *holder
}

func (l *recordingLease) Grant(ctx context.Context, ttl int64) (*clientv3.LeaseGrantResponse, error) {
	call := l.h.now()
	resp, err := l.Lease.Grant(ctx, ttl)
	ret := l.h.now()
	out := wire.Payload{Kind: "grant_reply", Err: errName(err)}
	if err == nil {
		out.Lease, out.TTL = uint64(resp.ID), int64(time.Duration(resp.TTL)*time.Second)
		l.h.mu.Lock()
		l.h.deadline = call + time.Duration(resp.TTL)*time.Second
		l.h.mu.Unlock()
	} else {
		ret = -1
	}
	l.h.op(call, ret, wire.Payload{Kind: "grant", TTL: int64(time.Duration(ttl) * time.Second)}, out)
	return resp, err
}

func (l *recordingLease) KeepAlive(ctx context.Context, id clientv3.LeaseID) (<-chan *clientv3.LeaseKeepAliveResponse, error) {
	in, err := l.Lease.KeepAlive(ctx, id)
	if err != nil {
		return in, err
	}
	out := make(chan *clientv3.LeaseKeepAliveResponse, 1)
	go func() {
		defer close(out)
		prev := l.h.now()
		for resp := range in {
			ret := l.h.now()
			ttl := time.Duration(resp.TTL) * time.Second
			call := l.h.takeSent(id, prev)
			l.h.op(call, ret, wire.Payload{Kind: "keepalive", Lease: uint64(id)},
				wire.Payload{Kind: "keepalive_reply", Lease: uint64(id), TTL: int64(ttl)})
			prev = ret
			l.h.mu.Lock()
			l.h.deadline = call + ttl
			d := l.h.deadline
			on := l.h.believing
			l.h.mu.Unlock()
			if on {
				l.h.report(wire.Report{Kind: wire.KindDeadline, Deadline: int64(d)})
			}
			select {
			case out <- resp:
			default: // the session only drains the channel
			}
		}
	}()
	return out, nil
}

// recordingKV is the client's KV with the Mutex's create transaction
// reported as the lessor's "create": If(CreateRevision(key) == 0)
// .Then(Put(key, "", lease)), the key's create revision as the reply's
// token. Other transactions and reads pass through unreported.
type recordingKV struct {
	clientv3.KV
	h *holder
}

func (kv *recordingKV) Txn(ctx context.Context) clientv3.Txn {
	return &recordingTxn{Txn: kv.KV.Txn(ctx), h: kv.h}
}

type recordingTxn struct {
	clientv3.Txn
	h    *holder
	cmps []clientv3.Cmp
	then []clientv3.Op
}

func (t *recordingTxn) If(cs ...clientv3.Cmp) clientv3.Txn {
	t.cmps = append(t.cmps, cs...)
	t.Txn = t.Txn.If(cs...)
	return t
}

func (t *recordingTxn) Then(ops ...clientv3.Op) clientv3.Txn {
	t.then = append(t.then, ops...)
	t.Txn = t.Txn.Then(ops...)
	return t
}

func (t *recordingTxn) Else(ops ...clientv3.Op) clientv3.Txn {
	t.Txn = t.Txn.Else(ops...)
	return t
}

// Commit commits and reports a create.
func (t *recordingTxn) Commit() (*clientv3.TxnResponse, error) {
	create := false
	if len(t.cmps) == 1 && len(t.then) > 0 && t.then[0].IsPut() {
		c := t.cmps[0].GetCompare()
		u, ok := c.TargetUnion.(*pb.Compare_CreateRevision)
		create = c.Target == pb.Compare_CREATE && c.Result == pb.Compare_EQUAL && ok && u.CreateRevision == 0 &&
			string(t.cmps[0].KeyBytes()) == string(t.then[0].KeyBytes())
	}
	call := t.h.now()
	resp, err := t.Txn.Commit()
	ret := t.h.now()
	if !create {
		return resp, err
	}
	t.h.mu.Lock()
	lease := t.h.lease
	t.h.mu.Unlock()
	key := string(t.then[0].KeyBytes())
	in := wire.Payload{Kind: "create", Key: key, Value: string(t.then[0].ValueBytes()), Lease: uint64(lease)}
	out := wire.Payload{Kind: "create_reply", Err: errName(err)}
	if err != nil {
		ret = -1
	} else {
		out.Revision = resp.Header.Revision
		out.OK = resp.Succeeded
		if resp.Succeeded {
			out.Token, out.Lease, out.Version = uint64(resp.Header.Revision), uint64(lease), strconv.FormatInt(resp.Header.Revision, 10)
		} else if rr := resp.Responses[0].GetResponseRange(); rr != nil && len(rr.Kvs) > 0 {
			kv := rr.Kvs[0]
			out.Token, out.Lease, out.Version = uint64(kv.CreateRevision), uint64(kv.Lease), strconv.FormatInt(kv.ModRevision, 10)
		}
	}
	t.h.op(call, ret, in, out)
	return resp, err
}
