package gohost

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDiagnoseNamesTheLikelySource(t *testing.T) {
	ev := func(at time.Duration, kind, node, detail string) Event {
		return Event{At: at, Kind: kind, Node: node, Detail: detail}
	}
	base := []Event{ev(0, "start", "a", ""), ev(time.Second, "deliver", "a", "x"), ev(time.Second, "deliver", "b", "y")}
	swapped := []Event{base[0], base[2], base[1]}
	otherValue := []Event{base[0], ev(time.Second, "deliver", "a", "z"), base[2]}
	later := []Event{base[0], ev(2*time.Second, "deliver", "a", "x")}
	seeded := &Config{SeedMathRand: true, SeedCryptoRand: true}
	for _, tt := range []struct {
		name   string
		cfg    *Config
		b      []Event
		want   string
		unseed bool
	}{
		{"one instant, other order", seeded, swapped, likelyOrder, false},
		{"same step, other value", seeded, otherValue, likelyValue, false},
		{"other timing", seeded, later, likelyTiming, false},
		{"one run shorter", seeded, base[:1], likelyTiming, false},
		{"unseeded randomness named", &Config{}, swapped, likelyOrder, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := diagnose(tt.cfg, base, tt.b, 1)
			assert.Contains(t, got, tt.want)
			assert.Equal(t, tt.unseed, got != tt.want, got)
			if tt.unseed {
				assert.Contains(t, got, "Config.SeedMathRand")
				assert.Contains(t, got, "Config.SeedCryptoRand")
			}
		})
	}
}
