package lease

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// ppbOne is a rate of 1 in parts per billion.
const ppbOne = 1_000_000_000

// Config is the lease configuration. One Config serves the grantor (TTL
// bounds, Rho) and the holders (TTL, renewal, backoff, margin). Zero fields
// take defaults in WithDefaults; Validate rejects unusable values.
type Config struct {
	// TTL is the lease time to live a holder requests.
	TTL time.Duration
	// RenewInterval is how often a holder renews (default TTL/3). It must be
	// below TTL×(1−Rho)−Margin, or belief would end before the renewal.
	RenewInterval time.Duration
	// Rho is the clock drift bound, in [0, 0.5): every clock's rate lies in
	// [1−Rho, 1+Rho]. It is converted to parts per billion, so every
	// computation with it is integer arithmetic.
	Rho float64
	// Margin is subtracted from the holder's validity as a safety margin,
	// for example for the time between checking validity and acting.
	Margin time.Duration
	// BackoffMin and BackoffMax bound the jittered exponential backoff
	// between acquire attempts (defaults TTL/50 and TTL/4).
	BackoffMin, BackoffMax time.Duration
	// TTLMin and TTLMax bound the TTL the grantor grants (defaults TTL/10
	// and TTL). TTLMax also sets the restart grace period, so it is kept
	// no larger than needed.
	TTLMin, TTLMax time.Duration
	// CheckpointInterval asks workers to checkpoint on a timer; zero means
	// never. The core does not use it; workers built on the holder do.
	CheckpointInterval time.Duration
	// CheckpointEveryUnits asks workers to checkpoint every N units of work;
	// zero means never. The core does not use it.
	CheckpointEveryUnits int
	// RequestTimeout is how long a holder waits for a reply (default
	// RenewInterval/2).
	RequestTimeout time.Duration
	// DriftSplit is how the grantor and the holders share the drift budget
	// (default SplitGrantorHolds). It sets GrantorHold and HolderValidity,
	// and the expiry policy P3 judges the grantor by.
	DriftSplit DriftSplit
	// ElectionTimeout is a replicated store's election timeout; zero means
	// the implementation's own default. Only an implementation that
	// declares Capabilities.ElectionTick reads it; a harness must not set
	// it for another.
	ElectionTimeout time.Duration
}

// WithDefaults returns c with zero fields set to their defaults. Defaults
// derive from TTL; if TTL is not positive, c is returned unchanged and
// Validate will reject it.
func (c Config) WithDefaults() Config {
	if c.TTL <= 0 {
		return c
	}
	setDefault(&c.RenewInterval, c.TTL/3)
	setDefault(&c.BackoffMin, c.TTL/50)
	setDefault(&c.BackoffMax, c.TTL/4)
	setDefault(&c.TTLMin, c.TTL/10)
	setDefault(&c.TTLMax, c.TTL)
	setDefault(&c.RequestTimeout, c.RenewInterval/2)
	return c
}

// setDefault sets *d to def (at least 1ns) if *d is zero.
func setDefault(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = max(def, 1)
	}
}

// Validate reports the first problem with c, wrapping ErrInvalidConfig.
func (c Config) Validate() error {
	if err := c.validateRanges(); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, err)
	}
	validity := c.HolderValidity(c.TTL)
	if c.RenewInterval >= validity {
		factor, twice := "", ""
		if c.DriftSplit == SplitHolderBudgets {
			factor, twice = "2", "2×"
		}
		return fmt.Errorf("%w: renew interval %v must be below TTL×(1−%srho)−margin = %v×(1−%s%v)−%v = %v,"+
			" or the holder stops believing it holds the lease before it renews",
			ErrInvalidConfig, c.RenewInterval, factor, c.TTL, twice, c.Rho, c.Margin, validity)
	}
	return nil
}

// validateRanges checks each field on its own and TTL against its bounds.
// A message is formatted only for the check that fails.
func (c Config) validateRanges() error {
	switch {
	case c.TTL <= 0:
		return fmt.Errorf("TTL %v must be positive", c.TTL)
	case math.IsNaN(c.Rho) || c.Rho < 0 || c.Rho >= 0.5:
		return fmt.Errorf("rho %v must lie in [0, 0.5)", c.Rho)
	case c.RenewInterval <= 0:
		return fmt.Errorf("renew interval %v must be positive", c.RenewInterval)
	case c.Margin < 0:
		return fmt.Errorf("margin %v must not be negative", c.Margin)
	case c.BackoffMin <= 0:
		return fmt.Errorf("backoff min %v must be positive", c.BackoffMin)
	case c.BackoffMax < c.BackoffMin:
		return fmt.Errorf("backoff max %v must be at least backoff min %v", c.BackoffMax, c.BackoffMin)
	case c.TTLMin <= 0:
		return fmt.Errorf("TTL min %v must be positive", c.TTLMin)
	case c.TTLMax < c.TTLMin:
		return fmt.Errorf("TTL max %v must be at least TTL min %v", c.TTLMax, c.TTLMin)
	case c.TTL < c.TTLMin || c.TTL > c.TTLMax:
		return fmt.Errorf("TTL %v must lie in [TTL min %v, TTL max %v]", c.TTL, c.TTLMin, c.TTLMax)
	case c.CheckpointInterval < 0:
		return fmt.Errorf("checkpoint interval %v must not be negative", c.CheckpointInterval)
	case c.CheckpointEveryUnits < 0:
		return fmt.Errorf("checkpoint every units %d must not be negative", c.CheckpointEveryUnits)
	case c.ElectionTimeout < 0:
		return fmt.Errorf("election timeout %v must not be negative", c.ElectionTimeout)
	case c.RequestTimeout <= 0:
		return fmt.Errorf("request timeout %v must be positive", c.RequestTimeout)
	case int(c.DriftSplit) >= len(driftSplitNames):
		return fmt.Errorf("drift split %d is not one of %v", c.DriftSplit, driftSplitNames)
	}
	return nil
}

// HolderValidity is how long after sending a successful request a holder
// may believe it holds a lease granted for ttl: ttl×(1−Rho) − Margin
// (ttl×(1−2Rho) − Margin under SplitHolderBudgets), with the drift term
// rounded up.
func (c Config) HolderValidity(ttl time.Duration) time.Duration {
	_, believe := c.DriftSplit.terms(c.rhoPPB())
	return ttl - scaleUp(ttl, believe) - c.Margin
}

// GrantorHold is how long after receiving a request the grantor keeps a
// lease granted for ttl: ttl×(1+Rho) (exactly ttl under
// SplitHolderBudgets), with the drift term rounded up.
func (c Config) GrantorHold(ttl time.Duration) time.Duration {
	hold, _ := c.DriftSplit.terms(c.rhoPPB())
	return ttl + scaleUp(ttl, hold)
}

// RestartGrace is how long a restarted grantor grants nothing: the longest
// hold of any lease it may have granted, TTLMax×(1+Rho).
func (c Config) RestartGrace() time.Duration { return c.GrantorHold(c.TTLMax) }

// rhoPPB returns Rho in parts per billion. This is the only place floating
// point touches lease arithmetic, and its result is the same everywhere.
func (c Config) rhoPPB() int64 { return int64(math.Round(c.Rho * ppbOne)) }

// scaleUp returns ceil(d×ppb/1e9) for d >= 0 and 0 <= ppb < 1e9, without
// overflow.
func scaleUp(d time.Duration, ppb int64) time.Duration {
	if d <= 0 || ppb <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(d), uint64(ppb))
	q, r := bits.Div64(hi, lo, ppbOne)
	if r != 0 {
		q++
	}
	return time.Duration(q)
}
