package k8slease

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// Timing is client-go's LeaderElectionConfig durations, mapped onto a
// scenario's lease.Config in client-go's default proportions
// (15 s / 10 s / 2 s):
//
//	LeaseDuration = TTL
//	RenewDeadline = TTL × 2/3   (10/15)
//	RetryPeriod   = TTL × 2/15  (2/15)
//
// RetryPeriod keeps client-go's ratio rather than taking the config's
// RenewInterval (TTL/3 by default), which would leave only two renewal
// attempts inside RenewDeadline; the config's RequestTimeout bounds each
// request. A candidate waits LeaseDuration on its own clock from when it
// saw the record change; a leader believes until RenewDeadline after it
// sent its last successful renewal. That is safe while
// RenewDeadline×(1+rho) < LeaseDuration×(1−rho) (rho up to 20% with these
// proportions), and an action decided just before the leader's deadline
// may take effect up to LeaseDuration − RenewDeadline (TTL/3) later, less
// drift, before another leader can exist: a pause longer than that between
// checking and acting is what only a fenced store catches.
type Timing struct {
	LeaseDuration  time.Duration
	RenewDeadline  time.Duration
	RetryPeriod    time.Duration
	RequestTimeout time.Duration
	// ReleaseDuration is the leaseDurationSeconds a release writes
	// (client-go writes 1 s of its 15 s default: TTL/15).
	ReleaseDuration time.Duration
	// Rho is the drift bound the timing was checked against.
	Rho float64
}

// jitterFactor is client-go's JitterFactor: a candidate waits between
// RetryPeriod and RetryPeriod×(1+jitterFactor) between attempts, and
// RenewDeadline must exceed RetryPeriod×jitterFactor.
const (
	jitterFactor = 1.2
	jitterTenths = 12 // jitterFactor in integer arithmetic, for the simulated path
)

// TimingFor maps cfg (defaults applied) onto client-go's durations and
// checks that they are usable: the errors wrap lease.ErrInvalidConfig.
func TimingFor(cfg lease.Config) (Timing, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return Timing{}, fmt.Errorf("k8slease timing: %w", err)
	}
	t := Timing{
		LeaseDuration:   cfg.TTL,
		RenewDeadline:   cfg.TTL * 2 / 3,
		RetryPeriod:     max(cfg.TTL*2/15, 1),
		RequestTimeout:  cfg.RequestTimeout,
		ReleaseDuration: max(cfg.TTL/15, 1),
		Rho:             cfg.Rho,
	}
	return t, t.validate()
}

// validate checks client-go's own constraints, then the drift and
// timeout bounds the safety argument needs.
func (t Timing) validate() error {
	var bad string
	switch {
	case t.LeaseDuration <= t.RenewDeadline:
		bad = fmt.Sprintf("lease duration %v must exceed renew deadline %v", t.LeaseDuration, t.RenewDeadline)
	case float64(t.RenewDeadline) <= jitterFactor*float64(t.RetryPeriod):
		bad = fmt.Sprintf("renew deadline %v must exceed retry period %v × %v", t.RenewDeadline, t.RetryPeriod, jitterFactor)
	case float64(t.RenewDeadline)*(1+t.Rho) >= float64(t.LeaseDuration)*(1-t.Rho):
		bad = fmt.Sprintf("renew deadline %v × (1+%v) must stay below lease duration %v × (1−%v), or drift lets "+
			"a candidate take over while the leader still believes", t.RenewDeadline, t.Rho, t.LeaseDuration, t.Rho)
	case t.RequestTimeout <= 0 || t.RequestTimeout >= t.RenewDeadline:
		bad = fmt.Sprintf("request timeout %v must lie in (0, renew deadline %v)", t.RequestTimeout, t.RenewDeadline)
	}
	if bad != "" {
		return fmt.Errorf("k8slease timing: %s: %w", bad, lease.ErrInvalidConfig)
	}
	return nil
}
