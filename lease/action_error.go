package lease

import "fmt"

// actionError is the error a Write, Read or Checkpoint hands to its done
// callback. It keeps its parts and formats them only if its text is read:
// callers mostly test it with errors.Is, and timed-out writes are common
// under faults. Its text is what fmt.Errorf made of the same parts before.
type actionError struct {
	shape    actionShape
	key      string // the key written (write shapes)
	resource string
	token    uint64
	err      error  // the operating error: ErrTimeout, ErrFenced, ...
	wrote    uint64 // readFenced: the token the value was written under
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
	readNotHeld                               // read "k" on "r": err
	readTimedOut                              // read "k" on "r", token 3: err
	readFenced                                // read "k" on "r", token 3: written under token 5: err
	readRejected                              // read on "r", token 3: err
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
	case readNotHeld:
		return fmt.Sprintf("read %q on %q: %v", e.key, e.resource, e.err)
	case readTimedOut:
		return fmt.Sprintf("read %q on %q, token %d: %v", e.key, e.resource, e.token, e.err)
	case readRejected:
		return fmt.Sprintf("read on %q, token %d: %v", e.resource, e.token, e.err)
	case readFenced:
		return fmt.Sprintf("read %q on %q, token %d: written under token %d: %v", e.key, e.resource, e.token, e.wrote, e.err)
	}
	return fmt.Sprintf("checkpoint on %q, token %d: %v", e.resource, e.token, e.err)
}

// Unwrap returns the operating error.
func (e *actionError) Unwrap() error { return e.err }
