package lease

import "fmt"

// actionError is the error a Write or Checkpoint hands to its done
// callback. It keeps its parts and formats them only if its text is read:
// callers mostly test it with errors.Is, and timed-out writes are common
// under faults. Its text is what fmt.Errorf made of the same parts before.
type actionError struct {
	shape    actionShape
	key      string // the key written (write shapes)
	resource string
	token    uint64
	err      error // the operating error: ErrTimeout, ErrFenced, ...
}

// actionShape says which action failed how, and so how its text reads.
type actionShape uint8

const (
	writeNotHeld       actionShape = iota + 1 // write "k" on "r": err
	checkpointNotHeld                         // checkpoint "r": err
	writeTimedOut                             // write "k" on "r", token 3: err
	checkpointTimedOut                        // checkpoint "r", token 3: err
	writeRejected                             // write on "r", token 3: err
	checkpointRejected                        // checkpoint on "r", token 3: err
)

func (e *actionError) Error() string {
	switch e.shape {
	case writeNotHeld:
		return fmt.Sprintf("write %q on %q: %v", e.key, e.resource, e.err)
	case checkpointNotHeld:
		return fmt.Sprintf("checkpoint %q: %v", e.resource, e.err)
	case writeTimedOut:
		return fmt.Sprintf("write %q on %q, token %d: %v", e.key, e.resource, e.token, e.err)
	case checkpointTimedOut:
		return fmt.Sprintf("checkpoint %q, token %d: %v", e.resource, e.token, e.err)
	case writeRejected:
		return fmt.Sprintf("write on %q, token %d: %v", e.resource, e.token, e.err)
	}
	return fmt.Sprintf("checkpoint on %q, token %d: %v", e.resource, e.token, e.err)
}

// Unwrap returns the operating error.
func (e *actionError) Unwrap() error { return e.err }
