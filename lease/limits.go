package lease

// Limits on what a request may carry, so that every buffer is bounded. A
// request beyond them is rejected with ErrBadRequest.
const (
	// MaxResourceBytes bounds the length of a resource name.
	MaxResourceBytes = 256
	// MaxKeysPerLease bounds how many keys one lease may carry.
	MaxKeysPerLease = 64
	// MaxStateBytes bounds the size of one checkpoint's state.
	MaxStateBytes = 1 << 20
	// MaxListKeys bounds how many keys one List reply carries; the rest are
	// left off.
	MaxListKeys = 1024
)
