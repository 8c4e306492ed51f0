package checker

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
)

// synthLease generates one resource's operations as a correct grantor and
// store would produce them: contenders acquire (granted or refused), the
// holder renews, checkpoints and writes, sometimes releases, and sometimes
// goes silent so that its lease expires and another takes over. Requests
// and replies take 1–20ms each way and the grantor processes one every
// 2–20ms, so two or three operations overlap at any time; 2% of replies
// never arrive.
type synthLease struct {
	rng       *rand.Rand
	cfg       lease.Config
	resource  string
	clients   []string
	ops       []history.Operation
	now       history.Time
	holder    string
	token     uint64
	expiresAt time.Duration
	ckpt      string
	ckptToken uint64
	reqID     uint64
	silent    bool // the holder stopped renewing: it crashed or hung
}

// grantorOffset is where the grantor's monotonic clock stood at true time 0.
const grantorOffset = 20 * time.Minute

func (s *synthLease) g() time.Duration { return grantorOffset + time.Duration(s.now) }

func (s *synthLease) latency() time.Duration {
	return time.Millisecond + time.Duration(s.rng.Int64N(int64(19*time.Millisecond)))
}

// record adds one operation processed now by server.
func (s *synthLease) record(server, client string, in, out lease.Message) {
	s.reqID++
	in.Client, in.Resource, in.ReqID = lease.Addr(client), s.resource, s.reqID
	out.Kind, out.Client, out.Resource, out.ReqID = in.Kind.Reply(), in.Client, s.resource, s.reqID
	if server == "grantor" {
		out.GrantorTime = s.g()
	}
	ret := s.now.Add(s.latency())
	if s.rng.IntN(50) == 0 {
		ret = history.Never
	}
	s.ops = append(s.ops, leasewire.NewOperation(client, server, s.now.Add(-s.latency()), s.now, ret, in, out))
}

func (s *synthLease) live() bool { return s.holder != "" && s.g() < s.expiresAt }

// step advances time a little and lets one client act.
func (s *synthLease) step() {
	s.now = s.now.Add(2*time.Millisecond + time.Duration(s.rng.Int64N(int64(18*time.Millisecond))))
	if s.live() && !s.silent && s.rng.IntN(3) > 0 {
		s.holderActs()
		return
	}
	client := s.clients[s.rng.IntN(len(s.clients))]
	s.acquire(client)
}

func (s *synthLease) acquire(client string) {
	in := lease.Message{Kind: lease.KindAcquire, TTL: s.cfg.TTL}
	if s.live() && s.holder != client {
		s.record("grantor", client, in, lease.Message{Err: lease.CodeHeld, Holder: lease.Addr(s.holder)})
		return
	}
	hold := s.g() + s.cfg.GrantorHold(s.cfg.TTL)
	if s.live() {
		s.expiresAt = max(s.expiresAt, hold) // the holder again: a renewal
	} else {
		s.holder, s.token, s.expiresAt, s.silent = client, s.token+1, hold, false
	}
	s.record("grantor", client, in, lease.Message{Token: s.token, TTL: s.cfg.TTL, Holder: lease.Addr(client),
		CheckpointToken: s.ckptToken, State: []byte(s.ckpt)})
}

func (s *synthLease) holderActs() {
	switch r := s.rng.IntN(100); {
	case r < 40:
		s.expiresAt = s.g() + s.cfg.GrantorHold(s.cfg.TTL)
		s.record("grantor", s.holder, lease.Message{Kind: lease.KindRenew, Token: s.token}, lease.Message{Token: s.token})
	case r < 60:
		s.ckpt, s.ckptToken = fmt.Sprint(s.reqID), s.token
		s.record("grantor", s.holder, lease.Message{Kind: lease.KindCheckpoint, Token: s.token, State: []byte(s.ckpt)},
			lease.Message{Token: s.token, CheckpointToken: s.token})
	case r < 90:
		v := []byte(fmt.Sprint(s.reqID))
		s.record("store", s.holder, lease.Message{Kind: lease.KindWrite, Token: s.token, Key: "k", Value: v},
			lease.Message{Token: s.token, Key: "k"})
	case r < 95:
		s.record("grantor", s.holder, lease.Message{Kind: lease.KindRelease, Token: s.token}, lease.Message{Token: s.token})
		s.holder = ""
	default:
		s.silent = true // renewals stop; the lease expires and a contender takes over
		s.now = s.now.Add(s.expiresAt - s.g())
	}
}

// synthHistory returns a legal history of about n operations over
// resources resources with contenders clients each.
func synthHistory(n, resources, contenders int) *history.History {
	cfg := lease.Config{TTL: 2 * time.Second, Rho: 0.01}.WithDefaults()
	h := &history.History{Lease: leasewire.Lease(cfg), Grantor: "grantor", Resource: "store"}
	clients := make([]string, contenders)
	for i := range clients {
		clients[i] = fmt.Sprintf("h%d", i)
	}
	for r := range resources {
		s := &synthLease{rng: rand.New(rand.NewPCG(uint64(r), 7)), cfg: cfg, resource: fmt.Sprintf("res-%03d", r),
			clients: clients}
		for len(s.ops) < n/resources {
			s.step()
		}
		h.AppendOp(s.ops...)
		h.End = max(h.End, s.now.Add(time.Second))
	}
	return h
}

func TestSynthHistoryIsLinearizable(t *testing.T) {
	h := synthHistory(5_000, 10, 4)
	r := Linearizability(h, Options{})
	require.Equal(t, OK, r.Status, "%s %v", r.Summary, r.Violations)
	require.Equal(t, 5_000, h.NumOps())
}

// BenchmarkLinearizability100k checks a 100,000-operation history: 200
// resources, 4 contenders each, with renewals, checkpoints, fenced writes,
// releases, expiries and lost replies.
func BenchmarkLinearizability100k(b *testing.B) {
	h := synthHistory(100_000, 200, 4)
	b.ResetTimer()
	for b.Loop() {
		r := Linearizability(h, Options{})
		if r.Status != OK {
			b.Fatalf("%s: %s", r.Status, r.Summary)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(h.NumOps()), "ns/history-op")
}
