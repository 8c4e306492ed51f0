package lease

import "time"

// backoff returns minimum×2^attempts, capped at maximum.
func backoff(minimum, maximum time.Duration, attempts int) time.Duration {
	d := minimum
	for range min(attempts, 62) {
		if d >= maximum/2 {
			return maximum
		}
		d *= 2
	}
	return min(d, maximum)
}

// jitter returns a random duration in [d/2, d] ("equal jitter"), so that
// holders that failed together do not retry together.
func (h *holder) jitter(d time.Duration) time.Duration {
	half := d / 2
	return half + time.Duration(h.env.Rand.Int64N(int64(d-half)+1))
}
