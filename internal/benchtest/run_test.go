package benchtest_test

import (
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/internal/benchtest"
)

func TestRunOpensABubble(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	var slept time.Duration
	ran := 0
	ok := benchtest.Run("Bubble", func(tt *testing.T) {
		ran++
		assert.Equal(t, procs, runtime.GOMAXPROCS(0), "the benchmark's GOMAXPROCS")
		synctest.Test(tt, func(*testing.T) {
			start := time.Now()
			time.Sleep(time.Hour)
			slept = time.Since(start)
		})
	})
	assert.True(t, ok)
	assert.Equal(t, 1, ran, "once, whatever -count and -cpu say")
	assert.Equal(t, time.Hour, slept, "a fake hour in the bubble")
	assert.Equal(t, procs, runtime.GOMAXPROCS(0), "restored")
}

func TestRunReportsAFailure(t *testing.T) {
	assert.False(t, benchtest.Run("Fails", func(tt *testing.T) { tt.Fail() }))
}
