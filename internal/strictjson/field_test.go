package strictjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnderPrefixesTheField(t *testing.T) {
	tests := []struct {
		name   string
		parent string
		err    *FieldError
		want   string // Field, or "nil"
	}{
		{"a field", "input", Badf("kind", "missing"), "input.kind"},
		{"the whole value", "input", Badf("", "want an object"), "input"},
		{"nested", "a", Under("b", Badf("c", "x")), "a.b.c"},
		{"nil stays nil", "input", nil, "nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before FieldError
			if tt.err != nil {
				before = *tt.err
			}
			got := Under(tt.parent, tt.err)
			if tt.want == "nil" {
				assert.Nil(t, got)
				return
			}
			assert.Equal(t, tt.want, got.Field)
			assert.Equal(t, tt.err.Err, got.Err, "what is wrong is kept")
			assert.Equal(t, before, *tt.err, "the original is left alone")
		})
	}
}

func TestBadfFormats(t *testing.T) {
	err := Badf("units", "must be positive, got %d", 0)
	assert.EqualError(t, err, "units: must be positive, got 0")
	assert.Equal(t, "units", err.Field)
}
