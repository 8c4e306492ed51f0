package truetime_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/truetime"
)

func TestAddSaturates(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    truetime.Time
		d    time.Duration
		want truetime.Time
	}{
		{"plain", 5, 3, 8},
		{"backwards", 5, -7, -2},
		{"past the end", truetime.Never - 1, 2, truetime.Never},
		{"never stays never", truetime.Never, time.Hour, truetime.Never},
		{"before the beginning", math.MinInt64 + 1, -2, math.MinInt64},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.t.Add(tc.d)) })
	}
}

func ExampleTime() {
	at := truetime.Time(0).Add(62500 * time.Millisecond)
	fmt.Println(at, at.Seconds(), at.Sub(truetime.Time(500*time.Millisecond)))
	// Output: 1m2.5s 62.5 1m2s
}
