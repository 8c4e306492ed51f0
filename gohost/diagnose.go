package gohost

// The likely sources of a divergence that diagnose names.
const (
	likelyOrder = "two events at one instant ran in the other order: goroutines woken at the same instant " +
		"(timers due together, replies delivered together) raced, and the code's output depends on which ran first"
	likelyValue = "the same step produced a different value: something read a source the bubble does not " +
		"replay (a clock read through a syscall, map iteration order)"
	likelyTiming = "the runs' timing differs from here on: a timer or timeout was set from a value the bubble " +
		"does not replay (map iteration order, a clock read through a syscall)"
	unseededMathRand   = "; math/rand's global source was not seeded for the run (Config.SeedMathRand)"
	unseededCryptoRand = "; crypto/rand was not seeded for the run (Config.SeedCryptoRand)"
)

// diagnose names the likely source of the first difference, at index i,
// between two runs' traces a and b of cfg: events of one instant in the
// other order, the same step with another value, or another timing; and
// the process-global randomness the run left unseeded, which reads in
// goroutine order.
func diagnose(cfg *Config, a, b []Event, i int) string {
	why := likelyTiming
	if i < len(a) && i < len(b) {
		x, y := a[i], b[i]
		switch {
		case x.At == y.At && atSameInstant(b, i, x) && atSameInstant(a, i, y):
			why = likelyOrder
		case x.At == y.At && x.Kind == y.Kind && x.Node == y.Node:
			why = likelyValue
		}
	}
	if !cfg.SeedMathRand {
		why += unseededMathRand
	}
	if !cfg.SeedCryptoRand {
		why += unseededCryptoRand
	}
	return why
}

// atSameInstant reports whether events, from index i on, has an event
// equal to e at e's instant: the two runs took the same steps at that
// instant, in another order.
func atSameInstant(events []Event, i int, e Event) bool {
	for _, o := range events[i:] {
		if o.At != e.At {
			return false
		}
		if o.Kind == e.Kind && o.Node == e.Node && o.Peer == e.Peer && o.Detail == e.Detail && o.Digest == e.Digest {
			return true
		}
	}
	return false
}
