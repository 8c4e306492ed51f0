package zootable

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSelected(t *testing.T) {
	for _, tt := range []struct {
		name, only string
		want       bool
	}{
		{"consul-cutoff/modify-index", "", true},
		{"consul-cutoff/modify-index", "consul-cutoff", true},
		{"consul-cutoff/modify-index", "lock-delay,cutoff", true},
		{"consul-cutoff/modify-index", "lock-delay,herd", false},
	} {
		assert.Equal(t, tt.want, selected(tt.name, tt.only), "%q in %q", tt.name, tt.only)
	}
}

func TestMeasureSkipsWithoutSeeds(t *testing.T) {
	t.Setenv("ZOOTABLE_TEST_SEEDS", "")
	var sub *testing.T
	t.Run("measure", func(t *testing.T) {
		sub = t
		Measure(t, "ZOOTABLE_TEST", nil)
	})
	assert.True(t, sub.Skipped(), "an ordinary go test run skips the measurement")
}
