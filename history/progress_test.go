package history

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProgressRoundTrip(t *testing.T) {
	tests := []struct {
		state string
		want  Progress
	}{
		{"", Progress{}},
		{"0", Progress{}},
		{"12", Progress{Units: 12}},
		{"done:20", Progress{Units: 20, Done: true}},
		{"done:", Progress{}},
		{"-3", Progress{}},
		{"twelve", Progress{}},
	}
	for _, tt := range tests {
		t.Run(tt.state, func(t *testing.T) {
			assert.Equal(t, tt.want, DecodeProgress(tt.state))
			assert.Equal(t, tt.want, DecodeProgress([]byte(tt.state)))
		})
	}
	for _, p := range []Progress{{Units: 12}, {Units: 20, Done: true}, {}} {
		assert.Equal(t, p, DecodeProgress(p.Encode()), "%+v", p)
	}
	assert.Equal(t, "done:20", string(Progress{Units: 20, Done: true}.Encode()))
	assert.Zero(t, testing.AllocsPerRun(100, func() { DecodeProgress("") }), "no state costs nothing")
}
