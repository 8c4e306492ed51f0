package redislock

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// timing is what a holder takes from lease.Config, checked.
type timing struct {
	ttl            time.Duration // the PX of every SET and PEXPIRE
	validity       time.Duration // how long after sending a successful SET or PEXPIRE the holder believes
	renewInterval  time.Duration
	requestTimeout time.Duration
	backoffMin     time.Duration
	backoffMax     time.Duration
}

// ppbOne is a rate of 1 in parts per billion.
const ppbOne = 1_000_000_000

// newTiming checks cfg (after its defaults) and derives the holder's
// validity. The server expires a key at exactly TTL on its own clock (PX),
// so the holder budgets both clocks' drift: a holder that believes for L on
// its clock believes at most L/(1−rho) of true time, and the key lives at
// least TTL/(1+rho), so L = TTL×(1−2rho) − Margin is safe
// ((1−2rho)(1+rho) ≤ 1−rho).
func newTiming(cfg lease.Config) (timing, error) {
	cfg = cfg.WithDefaults()
	if err := checkRanges(cfg); err != nil {
		return timing{}, fmt.Errorf("redislock config: %w: %w", err, lease.ErrInvalidConfig)
	}
	t := timing{ttl: cfg.TTL, renewInterval: cfg.RenewInterval, requestTimeout: cfg.RequestTimeout,
		backoffMin: cfg.BackoffMin, backoffMax: cfg.BackoffMax}
	t.validity = cfg.TTL - driftBudget(cfg.TTL, cfg.Rho) - cfg.Margin
	if t.renewInterval >= t.validity {
		return timing{}, fmt.Errorf("redislock config: renew interval %v must be below TTL×(1−2rho)−margin = %v, "+
			"or belief ends before the renewal: %w", t.renewInterval, t.validity, lease.ErrInvalidConfig)
	}
	return t, nil
}

// checkRanges reports the first field of cfg that is out of range.
func checkRanges(cfg lease.Config) error {
	switch {
	case cfg.TTL <= 0:
		return fmt.Errorf("TTL %v must be positive", cfg.TTL)
	case math.IsNaN(cfg.Rho) || cfg.Rho < 0 || cfg.Rho >= 0.5:
		return fmt.Errorf("rho %v must lie in [0, 0.5)", cfg.Rho)
	case cfg.Margin < 0:
		return fmt.Errorf("margin %v must not be negative", cfg.Margin)
	case cfg.RenewInterval <= 0 || cfg.RequestTimeout <= 0:
		return errors.New("renew interval and request timeout must be positive")
	case cfg.BackoffMin <= 0 || cfg.BackoffMax < cfg.BackoffMin:
		return fmt.Errorf("backoff [%v, %v] must be positive and ordered", cfg.BackoffMin, cfg.BackoffMax)
	}
	return nil
}

// driftBudget is ceil(ttl × 2rho): both clocks' drift over a TTL, in
// integer arithmetic once rho is in parts per billion.
func driftBudget(ttl time.Duration, rho float64) time.Duration {
	ppb := uint64(math.Round(2 * rho * ppbOne))
	hi, lo := bits.Mul64(uint64(ttl), ppb)
	q, r := bits.Div64(hi, lo, ppbOne)
	if r != 0 {
		q++
	}
	return time.Duration(q)
}
