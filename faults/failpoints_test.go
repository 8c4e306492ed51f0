package faults

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A failpoint event must name a failpoint the code marks; the error names
// the event, the field and every known name.
func TestCheckFailpoints(t *testing.T) {
	known := []string{"before-write", "before-checkpoint"}
	event := func(name string) Event {
		return Event{At: time.Second, Kind: KindFailpoint, Node: "h1", Failpoint: name, Action: ActionCrash}
	}
	tests := []struct {
		name  string
		s     Schedule
		index int // of the event reported; -1 for none
	}{
		{"known names", Schedule{Events: []Event{event("before-write"), event("before-checkpoint")}}, -1},
		{"no failpoint event", Schedule{Events: []Event{{Kind: KindPause, Node: "h1", Duration: time.Second}}}, -1},
		{"a misspelled name", Schedule{Events: []Event{event("before-write"), event("before-wirte")}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.CheckFailpoints(known)
			if tt.index < 0 {
				require.NoError(t, err)
				return
			}
			var ve *ValidationError
			require.True(t, errors.As(err, &ve), "%v", err)
			assert.Equal(t, tt.index, ve.Index)
			assert.Equal(t, "failpoint", ve.Field)
			assert.Contains(t, err.Error(), `unknown failpoint "before-wirte" (known: before-checkpoint, before-write)`)
		})
	}
}
