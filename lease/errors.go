package lease

import "errors"

// Operating errors. They are returned wrapped with context; test for them with
// errors.Is. Each one that can cross the network has an ErrCode.
var (
	// ErrFenced means a token is stale: a newer lease was granted on the
	// resource, so the action was rejected and the holder must stop acting
	// on its lease.
	ErrFenced = errors.New("lease: fenced: stale token")
	// ErrLeaseExpired means the lease is not (or no longer) held: it
	// expired, was released or revoked, or the holder's deadline passed.
	ErrLeaseExpired = errors.New("lease: lease expired")
	// ErrHeld means another client holds a live lease on the resource.
	ErrHeld = errors.New("lease: held by another client")
	// ErrTTLOutOfRange means a requested TTL lies outside the grantor's
	// [TTLMin, TTLMax].
	ErrTTLOutOfRange = errors.New("lease: TTL out of range")
	// ErrGrace means the grantor restarted recently and grants nothing until
	// every lease it may have granted before has expired.
	ErrGrace = errors.New("lease: grantor in restart grace period")
	// ErrNotHolder means the request came from a client that does not hold
	// the lease it names.
	ErrNotHolder = errors.New("lease: not the holder")
	// ErrTokenExhausted means the resource's token counter reached its
	// maximum; no further lease can be granted on it.
	ErrTokenExhausted = errors.New("lease: token counter exhausted")
	// ErrTimeout means no reply arrived within Config.RequestTimeout. The
	// request may or may not have taken effect.
	ErrTimeout = errors.New("lease: request timed out")
	// ErrInvalidConfig means a Config or Env is unusable; the wrapping error
	// says why.
	ErrInvalidConfig = errors.New("lease: invalid config")
	// ErrBadRequest means a request was malformed or exceeded a limit (for
	// example an empty resource name or too many attached keys).
	ErrBadRequest = errors.New("lease: bad request")
)

// ErrCode is an operating error as carried in a Message. The zero value means
// success. It encodes to JSON as its name.
type ErrCode uint8

// Error codes, one per sentinel error.
const (
	CodeOK ErrCode = iota
	CodeFenced
	CodeLeaseExpired
	CodeHeld
	CodeTTLOutOfRange
	CodeGrace
	CodeNotHolder
	CodeTokenExhausted
	CodeTimeout
	CodeInvalidConfig
	CodeBadRequest
)

var codeNames = []string{
	"ok", "fenced", "lease_expired", "held", "ttl_out_of_range", "grace",
	"not_holder", "token_exhausted", "timeout", "invalid_config", "bad_request",
}

// codeErrs maps each code to its sentinel; index 0 (CodeOK) is nil.
var codeErrs = []error{
	nil, ErrFenced, ErrLeaseExpired, ErrHeld, ErrTTLOutOfRange, ErrGrace,
	ErrNotHolder, ErrTokenExhausted, ErrTimeout, ErrInvalidConfig, ErrBadRequest,
}

// String returns the code's snake_case name.
func (c ErrCode) String() string { return enumName(c, codeNames, "ErrCode") }

// MarshalText encodes the code as its name.
func (c ErrCode) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText decodes a code from its name.
func (c *ErrCode) UnmarshalText(text []byte) error {
	v, err := enumParse[ErrCode](text, codeNames, "ErrCode")
	*c = v
	return err
}

// Err returns the sentinel error of c: nil for CodeOK, ErrBadRequest for an
// unknown code.
func (c ErrCode) Err() error {
	if int(c) < len(codeErrs) {
		return codeErrs[c]
	}
	return ErrBadRequest
}

// CodeOf returns the code of the first sentinel err wraps: CodeOK for nil and
// CodeBadRequest for an error that wraps none.
func CodeOf(err error) ErrCode {
	if err == nil {
		return CodeOK
	}
	for i, sentinel := range codeErrs {
		if sentinel != nil && errors.Is(err, sentinel) {
			return ErrCode(i)
		}
	}
	return CodeBadRequest
}
