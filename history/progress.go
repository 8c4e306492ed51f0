package history

import (
	"strconv"
	"strings"
)

// Progress is the checkpoint state of a checkpointed task: how many units
// are done, and whether the task is complete. Workers write it; checkers
// read it.
type Progress struct {
	Units int
	Done  bool
}

// Encode returns the checkpoint state bytes: "12", or "done:20".
func (p Progress) Encode() []byte {
	var b []byte
	if p.Done {
		b = append(make([]byte, 0, 8), "done:"...)
	}
	return strconv.AppendInt(b, int64(p.Units), 10)
}

// DecodeProgress reads checkpoint state, as bytes or as text. No state, or
// state that is not a progress, reads as no progress.
func DecodeProgress[S ~string | ~[]byte](b S) Progress {
	s, done := strings.CutPrefix(string(b), "done:")
	if s == "" {
		return Progress{} // no state yet, the common case: Atoi's error would allocate
	}
	units, err := strconv.Atoi(s)
	if err != nil || units < 0 {
		return Progress{}
	}
	return Progress{Units: units, Done: done}
}
