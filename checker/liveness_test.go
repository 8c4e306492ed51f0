package checker

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
)

func TestLivenessBound(t *testing.T) {
	cfg := testLease()
	// TTL 5s, rho 1%: grace 5.05s + hold 5.05s + backoff max 1.25s +
	// 2 × 833.333333ms + 1s.
	want := 5050*time.Millisecond + 5050*time.Millisecond + 1250*time.Millisecond +
		2*(5*time.Second/3/2) + time.Second
	assert.Equal(t, want, LivenessBound(cfg))
	assert.Equal(t, LivenessBound(cfg), LivenessBound(leasewire.Lease(lease.Config{TTL: 5 * time.Second, Rho: 0.01})),
		"the history records the defaults")
	r := Liveness(newHistory().contended("lock").build())
	assert.Contains(t, r.Bound, "B = "+want.String())
	assert.Contains(t, r.Bound, "restart grace 5.05s")
	assert.NotContains(t, r.Bound, "lock-delay")

	cfg.LockDelay = 15 * time.Second // a Consul lock's: refused to everyone that long after an invalidation
	assert.Equal(t, want+15*time.Second, LivenessBound(cfg))
	withDelay := newHistory().contended("lock").build()
	withDelay.Lease.LockDelay = cfg.LockDelay
	assert.Contains(t, Liveness(withDelay).Bound, "lock-delay 15s + backoff max")
}

func TestLivenessContended(t *testing.T) {
	heal := at(60_000)
	bound := LivenessBound(testLease())
	due := heal.Add(bound)
	tests := []struct {
		name   string
		h      *hb
		want   Status
		detail string
	}{
		{"nothing contended", newHistory(), NotApplicable, ""},
		{"held again after the heal", newHistory().contended("lock").
			belief("h1", "lock", 1, at(10_000), at(20_000)).
			belief("h2", "lock", 2, at(65_000), at(120_000)), OK, ""},
		{"held right through the heal", newHistory().contended("lock").
			belief("h1", "lock", 1, at(50_000), at(120_000)), OK, ""},
		{"held just at the bound", newHistory().contended("lock").
			belief("h2", "lock", 2, due, at(120_000)), OK, ""},
		{"held only after the bound", newHistory().contended("lock").
			belief("h1", "lock", 1, at(10_000), at(20_000)).
			belief("h2", "lock", 2, due+1, at(120_000)), Violated, "no live holder believed \"lock\""},
		{"belief ended before the heal", newHistory().contended("lock").
			belief("h1", "lock", 1, at(10_000), heal), Violated, "last belief: h1 believed"},
		{"a crashed holder's belief is no witness", newHistory().contended("lock").
			belief("h1", "lock", 1, at(50_000), at(120_000)).
			fault(history.FaultCrash, "h1", at(55_000), at(120_000)), Violated, "no live holder"},
		{"another resource's belief is no witness", newHistory().contended("lock").
			belief("h1", "other", 1, at(65_000), at(120_000)), Violated, "nobody ever believed \"lock\""},
		{"run too short to tell", newHistory().contended("lock").span(heal, at(70_000)), Unknown, ""},
		{"run too short, but held: a witness is a witness", newHistory().contended("lock").span(heal, at(70_000)).
			belief("h1", "lock", 1, at(65_000), at(70_000)), OK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Liveness(tt.h.build())
			assert.Equal(t, "P4", r.Property)
			require.Equal(t, tt.want, r.Status, r.Summary)
			switch tt.want {
			case OK:
				assert.Empty(t, r.Violations)
			case Unknown:
				assert.Contains(t, r.Summary, "run too short")
			case Violated:
				require.NotEmpty(t, r.Violations)
				assert.Equal(t, due, r.Violations[0].At)
				assert.Contains(t, r.Violations[0].Detail+r.Violations[0].Evidence[0], tt.detail)
			}
		})
	}
}

func TestLivenessTasks(t *testing.T) {
	heal := at(60_000)
	bound := LivenessBound(testLease())
	// A task of 10 units of 500 ms arriving before the heal is due by
	// heal + B + 5s + 1s.
	due := heal.Add(bound + 6*time.Second)
	const u = 500 * time.Millisecond
	tests := []struct {
		name string
		h    *hb
		want Status
	}{
		{"done before the heal", newHistory().task("t1", 10, u, at(0), at(20_000)), OK},
		{"done at the bound", newHistory().task("t1", 10, u, at(0), due), OK},
		{"done after the bound", newHistory().task("t1", 10, u, at(0), due+1), Violated},
		{"never done", newHistory().task("t1", 10, u, at(0), history.Never), Violated},
		{"arriving after the heal is due later", newHistory().task("t1", 10, u, at(70_000), due+10*history.Time(time.Second)), OK},
		{"never arrived", newHistory().task("t1", 10, u, at(130_000), history.Never), OK},
		{"run too short to tell", newHistory().span(heal, at(70_000)).task("t1", 10, u, at(0), history.Never), Unknown},
		// A done checkpoint that got no answer may have completed the task
		// at any time after it was asked (a replicated store applying it
		// after the member that took it crashed).
		{"known done late, asked in time unanswered", newHistory().task("t1", 10, u, at(0), due+1).unanswered(due), Unknown},
		{"never known done, asked in time unanswered", newHistory().task("t1", 10, u, at(0), history.Never).unanswered(at(20_000)), Unknown},
		{"known done late, asked late unanswered", newHistory().task("t1", 10, u, at(0), due+2).unanswered(due + 1), Violated},
		{"done in time, an unanswered ask changes nothing", newHistory().task("t1", 10, u, at(0), due).unanswered(at(20_000)), OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Liveness(tt.h.build())
			require.Equal(t, tt.want, r.Status, r.Summary)
			switch tt.want {
			case Violated:
				assert.Contains(t, r.Violations[0].Detail, "task \"t1\" (10 units of 500ms, arrived 0s) was due by")
			case Unknown:
				assert.Empty(t, r.Violations)
			}
		})
	}
}

func TestLivenessRegistry(t *testing.T) {
	heal := at(60_000)
	hold := holdTrue(testLease(), testLease().TTL) // 5.05s / 0.99
	registered := func() *hb {
		return newHistory().acquireKeys("s1", "svc/s1", 1, at(1000), "svc/s1").
			renew("s1", "svc/s1", 1, at(2000), lease.CodeOK).
			list("r1", at(3000), "svc/s1")
	}
	// back registers s1 again after the heal and keeps it: a reader sees it
	// before and after the bound.
	back := func(b *hb) *hb {
		return b.acquireKeys("s1", "svc/s1", 2, at(61_000), "svc/s1").list("r1", at(62_000), "svc/s1").
			renew("s1", "svc/s1", 2, at(79_000), lease.CodeOK).list("r1", at(80_000), "svc/s1")
	}
	tests := []struct {
		name   string
		h      *hb
		want   Status
		detail string
	}{
		{"no registry", newHistory(), NotApplicable, ""},
		{"registrants but no readers", newHistory().acquireKeys("s1", "svc/s1", 1, at(1000), "svc/s1"), OK, ""},
		{"seen again after the heal, and after the bound", back(registered()), OK, ""},
		{"seen again, but missing after the bound", registered().
			acquireKeys("s1", "svc/s1", 2, at(61_000), "svc/s1").list("r1", at(62_000), "svc/s1").
			list("r1", at(80_000)), Violated, "the registration \"svc/s1\" was missing from r1's listing at 1m20s"},
		{"seen again, but nobody listed after the bound", registered().
			acquireKeys("s1", "svc/s1", 2, at(61_000), "svc/s1").list("r1", at(62_000), "svc/s1"), Unknown, ""},
		{"never seen again", registered().list("r1", at(62_000)), Violated, "no reader saw the registration \"svc/s1\""},
		{"run too short to tell", registered().span(heal, at(65_000)).list("r1", at(62_000)), Unknown, ""},
		{"seen within the bound of the last renewal", back(registered().list("r1", at(2000).Add(hold), "svc/s1")), OK, ""},
		{"seen after the bound: a dead registration", back(registered().list("r1", at(2000).Add(hold)+1, "svc/s1")),
			Violated, "a reader saw a dead registration for \"svc/s1\""},
		{"a refused renewal extends nothing", registered().renew("s1", "svc/s1", 1, at(5000), lease.CodeLeaseExpired).
			list("r1", at(5000).Add(hold), "svc/s1"), Violated, "dead registration"},
		{"a key no lease carried", newHistory().list("r1", at(1000), "svc/ghost"), Violated, "no lease ever carried it"},
		{"a dead registration under drift beyond rho", back(registered().drift(50_000_000).
			list("r1", at(2000).Add(hold)+1, "svc/s1")), Unknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Liveness(tt.h.build())
			require.Equal(t, tt.want, r.Status, r.Summary)
			if tt.want == Violated {
				assert.Contains(t, r.Violations[0].Detail, tt.detail)
			}
			assert.Equal(t, strings.Contains(tt.name, "drift beyond rho"), r.AssumptionOnly(),
				"only a broken assumption is flagged as one: %s", r.Summary)
		})
	}
}

func TestHoldTrue(t *testing.T) {
	cfg := testLease()
	assert.Equal(t, 5101010102*time.Nanosecond, holdTrue(cfg, 5*time.Second), "5.05s / 0.99, rounded up")
	cfg.RhoPPB, cfg.HoldPPB = 0, 0
	assert.Equal(t, 5*time.Second, holdTrue(cfg, 5*time.Second))
	cfg.RhoPPB, cfg.HoldPPB = 400_000_000, 400_000_000
	assert.Equal(t, time.Duration(math.MaxInt64), holdTrue(cfg, 1<<62), "saturates instead of overflowing")
}
