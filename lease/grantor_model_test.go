package lease_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/lease"
)

// modelLease is the reference model's lease.
type modelLease struct {
	client    lease.Addr
	token     uint64
	ttl       time.Duration
	expiresAt time.Duration
	revoked   bool
}

// grantorModel is a sequential reference model of the grantor, written from
// the spec: leases expire at receipt + TTL×(1+rho) on the grantor's clock,
// tokens come from a durable counter, and a restart blocks grants for the
// restart grace period.
type grantorModel struct {
	cfg        lease.Config
	leases     map[string]*modelLease
	counter    map[string]uint64
	checkpoint map[string]string
	graceUntil time.Duration
}

func (m *grantorModel) live(res string, now time.Duration) *modelLease {
	if l := m.leases[res]; l != nil && now < l.expiresAt {
		return l
	}
	delete(m.leases, res)
	return nil
}

// held mirrors the spec for renew/release/checkpoint.
func (m *grantorModel) held(client lease.Addr, res string, token uint64, now time.Duration) (*modelLease, lease.ErrCode) {
	l := m.live(res, now)
	switch {
	case l != nil && l.token == token && !l.revoked && l.client == client:
		return l, lease.CodeOK
	case l != nil && l.token == token && !l.revoked:
		return nil, lease.CodeNotHolder
	case token < m.counter[res]:
		return nil, lease.CodeFenced
	}
	return nil, lease.CodeLeaseExpired
}

func (m *grantorModel) acquire(client lease.Addr, res string, ttl, now time.Duration) (lease.ErrCode, *modelLease) {
	if ttl < m.cfg.TTLMin || ttl > m.cfg.TTLMax {
		return lease.CodeTTLOutOfRange, nil
	}
	if now < m.graceUntil {
		return lease.CodeGrace, nil
	}
	l := m.live(res, now)
	if l != nil && (l.client != client || l.revoked) {
		return lease.CodeHeld, l
	}
	if l == nil {
		m.counter[res]++
		l = &modelLease{client: client, token: m.counter[res]}
		m.leases[res] = l
	}
	l.ttl = ttl
	l.expiresAt = max(l.expiresAt, now+m.cfg.GrantorHold(ttl))
	return lease.CodeOK, l
}

// grantorMachine drives a real grantor and the model side by side.
type grantorMachine struct {
	f      *fixture
	model  *grantorModel
	issued map[string]uint64 // highest token ever seen granted, per resource
}

var (
	modelClients   = []lease.Addr{"c1", "c2", "c3"}
	modelResources = []string{"r1", "r2"}
)

func (s *grantorMachine) now() time.Duration { return s.f.w.Now() }

func (s *grantorMachine) draw(t *rapid.T) (lease.Addr, string) {
	return rapid.SampledFrom(modelClients).Draw(t, "client"), rapid.SampledFrom(modelResources).Draw(t, "resource")
}

func (s *grantorMachine) drawToken(t *rapid.T, res string) uint64 {
	return rapid.Uint64Range(0, s.model.counter[res]+1).Draw(t, "token")
}

func (s *grantorMachine) Acquire(t *rapid.T) {
	client, res := s.draw(t)
	cfg := s.model.cfg
	ttl := rapid.SampledFrom([]time.Duration{0, cfg.TTLMin - 1, cfg.TTLMin, cfg.TTL / 2, cfg.TTLMax, cfg.TTLMax + 1}).Draw(t, "ttl")
	got := s.f.acquire(client, res, ttl)
	want, l := s.model.acquire(client, res, ttl, s.now())
	s.expect(t, got, want)
	switch want {
	case lease.CodeOK:
		s.expectLease(t, got, l)
		if l.token < s.issued[res] {
			t.Fatalf("token %d granted after %d", l.token, s.issued[res])
		}
		s.issued[res] = l.token
		if string(got.State) != s.model.checkpoint[res] {
			t.Fatalf("grant handed over state %q, want %q", got.State, s.model.checkpoint[res])
		}
	case lease.CodeHeld:
		if got.Holder != l.client || got.Remaining != l.expiresAt-s.now() {
			t.Fatalf("held reply %+v, want holder %s remaining %v", got, l.client, l.expiresAt-s.now())
		}
	}
}

func (s *grantorMachine) Renew(t *rapid.T) {
	client, res := s.draw(t)
	token := s.drawToken(t, res)
	got := s.f.grantorReq(client, lease.KindRenew, res, token)
	l, want := s.model.held(client, res, token, s.now())
	if want == lease.CodeOK {
		l.expiresAt = max(l.expiresAt, s.now()+s.model.cfg.GrantorHold(l.ttl))
	}
	s.expect(t, got, want)
	if want == lease.CodeOK {
		s.expectLease(t, got, l)
	}
}

func (s *grantorMachine) Release(t *rapid.T) {
	client, res := s.draw(t)
	token := s.drawToken(t, res)
	got := s.f.grantorReq(client, lease.KindRelease, res, token)
	_, want := s.model.held(client, res, token, s.now())
	if want == lease.CodeOK {
		delete(s.model.leases, res)
	}
	s.expect(t, got, want)
}

func (s *grantorMachine) Revoke(t *rapid.T) {
	_, res := s.draw(t)
	got := s.f.grantorReq("operator", lease.KindRevoke, res, 0)
	want := lease.CodeLeaseExpired
	if l := s.model.live(res, s.now()); l != nil {
		want = lease.CodeOK
		l.revoked = true
	}
	s.expect(t, got, want)
}

func (s *grantorMachine) Checkpoint(t *rapid.T) {
	client, res := s.draw(t)
	token := s.drawToken(t, res)
	state := rapid.StringMatching(`[a-z]{1,4}`).Draw(t, "state")
	got := s.f.call(client, grantorAddr, lease.Message{Kind: lease.KindCheckpoint, Resource: res, Token: token, State: []byte(state)})
	want := lease.CodeFenced
	if _, code := s.model.held(client, res, token, s.now()); code == lease.CodeOK {
		want = lease.CodeOK
		s.model.checkpoint[res] = state
	}
	s.expect(t, got, want)
}

func (s *grantorMachine) Query(t *rapid.T) {
	_, res := s.draw(t)
	got := s.f.grantorReq("c9", lease.KindQuery, res, 0)
	l := s.model.live(res, s.now())
	if l == nil || l.revoked {
		s.expect(t, got, lease.CodeLeaseExpired)
		return
	}
	s.expect(t, got, lease.CodeOK)
	s.expectLease(t, got, l)
}

func (s *grantorMachine) Advance(t *rapid.T) {
	hold := s.model.cfg.GrantorHold(s.model.cfg.TTL)
	d := rapid.SampledFrom([]time.Duration{1, time.Second, hold / 3, hold - 1, hold}).Draw(t, "advance")
	s.f.w.Advance(d)
}

func (s *grantorMachine) Restart(t *rapid.T) {
	s.f.restartGrantor()
	s.model.leases = map[string]*modelLease{}
	s.model.graceUntil = s.now() + s.model.cfg.RestartGrace()
}

// Check compares what the grantor reports with the model after every step.
func (s *grantorMachine) Check(t *rapid.T) {
	for _, res := range modelResources {
		info, ok := s.f.g.Lookup(res)
		l := s.model.live(res, s.now())
		if ok != (l != nil) {
			t.Fatalf("%s: grantor has lease %v, model %v", res, ok, l != nil)
		}
		if ok && (info.Token != l.token || info.Holder != l.client || info.ExpiresAt != l.expiresAt || info.Revoked != l.revoked) {
			t.Fatalf("%s: grantor %+v, model %+v", res, info, *l)
		}
	}
}

func (s *grantorMachine) expect(t *rapid.T, got lease.Message, want lease.ErrCode) {
	if got.Err != want {
		t.Fatalf("%v: got %v, want %v (reply %+v)", got.Kind, got.Err, want, got)
	}
	if got.GrantorTime != s.now() {
		t.Fatalf("%v: grantor time %v, want %v", got.Kind, got.GrantorTime, s.now())
	}
}

func (s *grantorMachine) expectLease(t *rapid.T, got lease.Message, l *modelLease) {
	if got.Token != l.token || got.TTL != l.ttl || got.Remaining != l.expiresAt-s.now() {
		t.Fatalf("%v: got token %d ttl %v remaining %v, want %d %v %v",
			got.Kind, got.Token, got.TTL, got.Remaining, l.token, l.ttl, l.expiresAt-s.now())
	}
}

func TestGrantorMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := testConfig()
		s := &grantorMachine{
			f: newFixture(t, cfg),
			model: &grantorModel{cfg: cfg, leases: map[string]*modelLease{},
				counter: map[string]uint64{}, checkpoint: map[string]string{}},
			issued: map[string]uint64{},
		}
		t.Repeat(rapid.StateMachineActions(s))
	})
}
