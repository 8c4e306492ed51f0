package lease

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// An action's error reads as the fmt.Errorf it replaces and unwraps to
// its operating error.
func TestActionErrorText(t *testing.T) {
	tests := []struct {
		err  *actionError
		want error
	}{
		{&actionError{shape: writeNotHeld, key: "k", resource: "r", err: ErrLeaseExpired},
			fmt.Errorf("write %q on %q: %w", "k", "r", ErrLeaseExpired)},
		{&actionError{shape: checkpointNotHeld, resource: "r", err: ErrLeaseExpired},
			fmt.Errorf("checkpoint %q: %w", "r", ErrLeaseExpired)},
		{&actionError{shape: writeTimedOut, key: "k", resource: "r", token: 3, err: ErrTimeout},
			fmt.Errorf("write %q on %q, token %d: %w", "k", "r", 3, ErrTimeout)},
		{&actionError{shape: checkpointTimedOut, resource: "r", token: 3, err: ErrTimeout},
			fmt.Errorf("checkpoint %q, token %d: %w", "r", 3, ErrTimeout)},
		{&actionError{shape: writeRejected, resource: "r", token: 3, err: ErrFenced},
			fmt.Errorf("%s on %q, token %d: %w", "write", "r", 3, ErrFenced)},
		{&actionError{shape: checkpointRejected, resource: "r", token: 3, err: ErrFenced},
			fmt.Errorf("%s on %q, token %d: %w", "checkpoint", "r", 3, ErrFenced)},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want.Error(), tc.err.Error())
		assert.ErrorIs(t, tc.err, errors.Unwrap(tc.want))
	}
}
