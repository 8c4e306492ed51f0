package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMutexRules(t *testing.T) {
	acq := pair{MutexInput{MutexAcquire}, MutexOutput{Known: true}}
	rel := pair{MutexInput{MutexRelease}, MutexOutput{Known: true}}
	runCases(t, MutexSpec(), []specCase{
		{"acquire, release, acquire", []pair{acq, rel, acq}, ""},
		{"acquired twice", []pair{acq, acq}, "acquire succeeded, but the mutex is held"},
		{"released while free", []pair{rel}, "release succeeded, but the mutex is free"},
		{"an unknown acquire while held", []pair{acq, {MutexInput{MutexAcquire}, MutexOutput{}}, rel}, ""},
		{"an unknown acquire takes it when free", []pair{{MutexInput{MutexAcquire}, MutexOutput{}}, acq}, "is held"},
	})
}

func mutexGen() opGen {
	return opGen{
		spec:  MutexSpec(),
		key:   func(any) string { return "" },
		input: func(r *rand.Rand) any { return MutexInput{pick(r, MutexAcquire, MutexRelease)} },
		output: func(r *rand.Rand, _ any, now int64, _ any) (any, int64) {
			return MutexOutput{Known: r.IntN(6) > 0}, now
		},
	}
}

func TestMutexDifferential(t *testing.T) {
	c := differential(t, mutexGen(), 37, histories(), 8)
	t.Logf("%d linearizable, %d illegal", c.ok, c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}
